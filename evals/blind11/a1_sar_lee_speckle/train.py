"""Train a small CNN on Lee-filtered SAR chips (land-cover classes)."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

import evalkit
from chips import CLASSES, SARChipDataset
from speckle import Compose, LeeFilter, Normalize, RandomCrop, RandomHorizontalFlip, ToDecibel


class SmallSARNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def build_transform(cfg):
    return Compose([
        RandomCrop(cfg["data"]["crop_size"]),
        LeeFilter(size=cfg["speckle"]["window"], enl=cfg["speckle"]["enl"]),
        ToDecibel(noise_floor=cfg["db"]["noise_floor_dn"]),
        Normalize(cfg["db"]["mean"], cfg["db"]["std"]),
        RandomHorizontalFlip(0.5),
    ])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="sar.yaml")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    seed_everything(cfg["seed"])

    dcfg = cfg["data"]
    dataset = SARChipDataset(dcfg["num_chips"], dcfg["chip_size"], dcfg["looks"], dcfg["num_classes"],
                             seed=cfg["seed"], transform=build_transform(cfg))
    loader = DataLoader(dataset, batch_size=cfg["loader"]["batch_size"], shuffle=cfg["loader"]["shuffle"],
                        num_workers=cfg["loader"]["num_workers"],
                        generator=torch.Generator().manual_seed(cfg["seed"]))

    model = SmallSARNet(len(CLASSES))
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["train"]["lr"],
                                  weight_decay=cfg["train"]["weight_decay"])
    criterion = nn.CrossEntropyLoss()
    meter = evalkit.Meter()

    correct = seen = 0
    for epoch in range(cfg["train"]["epochs"]):
        model.train()
        for images, labels in loader:
            meter.batch((images, labels))
            logits = model(images)
            loss = criterion(logits, labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            meter.step(loss)
            correct += int((logits.argmax(1) == labels).sum())
            seen += labels.numel()
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"train_acc": correct / max(seen, 1), "epochs_started": epoch + 1})


if __name__ == "__main__":
    main()
