"""Train a small CNN to separate point sources from extended ones on calibrated CCD cutouts."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
from ccd import (AsinhStretch, Calibrate, Compose, CutoutDataset, RandomFlip, RejectCosmicRays, ToTensor,
                 simulate_night)


class SourceNet(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.head = nn.Linear(16, n_classes)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.head(x.mean(dim=(2, 3)))


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--config", default="ccd.yaml")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    seed_everything(cfg["seed"])
    data_cfg, det = cfg["data"], cfg["detector"]
    frames, masters, catalogue = simulate_night(
        cfg["seed"], data_cfg["n_exposures"], data_cfg["frame_size"], data_cfg["sources_per_frame"],
        data_cfg["exptime"], det["gain"], det["read_noise"], det["cr_rate"])

    aug_gen = torch.Generator().manual_seed(cfg["seed"] + 1)
    transform = Compose([
        Calibrate(masters, data_cfg["exptime"]),
        RejectCosmicRays(det["cr_sigma"], det["gain"], det["read_noise"], det["cr_max_iter"]),
        RandomFlip(axis=1, generator=aug_gen),
        RandomFlip(axis=0, generator=aug_gen),
        AsinhStretch(),
        ToTensor(),
    ])
    dataset = CutoutDataset(frames, catalogue, data_cfg["cutout"], transform=transform)
    loader = DataLoader(dataset, batch_size=cfg["loader"]["batch_size"], shuffle=cfg["loader"]["shuffle"],
                        num_workers=cfg["loader"]["num_workers"],
                        generator=torch.Generator().manual_seed(cfg["seed"]), drop_last=True)

    model = SourceNet()
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["train"]["lr"], weight_decay=cfg["train"]["weight_decay"])
    meter = evalkit.Meter()
    total_hits = 0
    for epoch in range(cfg["train"]["epochs"]):
        model.train()
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["image"])
            loss = F.cross_entropy(logits, batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            total_hits += int(batch["cr_hits"].sum())
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"cr_hits": total_hits, "epochs_seen": epoch + 1})


if __name__ == "__main__":
    main()
