"""Train a small layout classifier (one vs two text columns) on binarised, deskewed page scans."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

import evalkit
from docproc import (Compose, DecodePGM, Downsample, ProjectionDeskew, RandomCrop, SauvolaBinarize,
                     ScannedPages, ToTensor)


class LayoutNet(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d((4, 1)),
        )
        self.head = nn.Linear(16 * 4, n_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-c", "--config", default="config.yaml")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    seed_everything(cfg["seed"])
    dcfg = cfg["data"]
    aug_rng = np.random.default_rng(cfg["seed"] + 1)
    transform = Compose([
        DecodePGM(),
        RandomCrop(dcfg["crop"], aug_rng),
        SauvolaBinarize(**cfg["sauvola"]),
        ProjectionDeskew(cfg["deskew"]["angles"]),
        Downsample(2),
        ToTensor(),
    ])
    dataset = ScannedPages(dcfg["n_pages"], dcfg["page_size"], cfg["seed"], transform=transform)
    loader = DataLoader(dataset, batch_size=dcfg["batch_size"], shuffle=True, drop_last=True,
                        num_workers=dcfg["num_workers"],
                        generator=torch.Generator().manual_seed(cfg["seed"]))

    model = LayoutNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
    criterion = nn.CrossEntropyLoss()
    meter = evalkit.Meter()
    angle_hist = {}
    step = 0
    for epoch in range(cfg["train"]["epochs"]):
        model.train()
        for batch in loader:
            meter.batch(batch)
            for a in batch["angle"].tolist():
                angle_hist[a] = angle_hist.get(a, 0) + 1
            logits = model(batch["image"])
            loss = criterion(logits, batch["label"])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            step += 1
            if step % cfg["train"]["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"angles": {str(k): v for k, v in sorted(angle_hist.items())}})


if __name__ == "__main__":
    main()
