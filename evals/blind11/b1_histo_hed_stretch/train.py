"""Train a small stain-channel CNN on H&E tiles (tumour vs. stroma)."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

import evalkit
from histo import ColorDeconvolution, Compose, PercentileStretch, RandomFlipRotate, TileDataset, ToTensor


class StainNet(nn.Module):
    def __init__(self, channels=(8, 16), num_classes=2):
        super().__init__()
        c1, c2 = channels
        self.features = nn.Sequential(
            nn.Conv2d(2, c1, 3, stride=2, padding=1), nn.BatchNorm2d(c1), nn.ReLU(inplace=True),
            nn.Conv2d(c1, c2, 3, stride=2, padding=1), nn.BatchNorm2d(c2), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(c2, num_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="histo.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    aug_gen = torch.Generator().manual_seed(seed + 1)
    tcfg = cfg["transforms"]
    transform = Compose([
        RandomFlipRotate(p=tcfg["flip_p"], generator=aug_gen),
        ColorDeconvolution(),
        PercentileStretch(tcfg["low_percentile"], tcfg["high_percentile"]),
        ToTensor(),
    ])
    dcfg = cfg["data"]
    dataset = TileDataset(seed, dcfg["num_tiles"], dcfg["tile_size"], dcfg["stain_jitter"], transform=transform)
    loader = DataLoader(dataset, batch_size=cfg["train"]["batch_size"], shuffle=True,
                        num_workers=dcfg["num_workers"], drop_last=True,
                        generator=torch.Generator().manual_seed(seed + 2))

    model = StainNet(cfg["model"]["channels"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["train"]["lr"], weight_decay=cfg["train"]["weight_decay"])
    loss_fn = nn.CrossEntropyLoss()
    meter = evalkit.Meter()

    correct = seen = 0
    for epoch in range(cfg["train"]["epochs"]):
        model.train()
        for images, labels in loader:
            meter.batch((images, labels))
            logits = model(images)
            loss = loss_fn(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int((logits.argmax(1) == labels).sum())
            seen += labels.numel()
            if meter.done():
                break
        print(f"epoch {epoch} loss {loss.item():.4f} acc {correct / max(seen, 1):.3f}")
        if meter.done():
            break
    meter.report({"train_acc": correct / max(seen, 1), "epochs": epoch + 1})


if __name__ == "__main__":
    main()
