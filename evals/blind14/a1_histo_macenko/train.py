"""Train a small tumour / normal tile classifier on stain-normalised H&E tiles.

    python train.py --config config.yaml
"""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

import evalkit
from histo import (ColorJitter, Compose, MacenkoNormalizer, RandomFlip, RandomRot90, TileDataset, ToTensor,
                   make_slides)


class TileNet(nn.Module):
    def __init__(self, width=16, n_classes=2):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(2 * width, 2 * width, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(2 * width, n_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def build_transform(cfg):
    stain = cfg["stain"]
    aug = cfg["augment"]
    return Compose([
        MacenkoNormalizer(io=stain["io"], alpha=stain["alpha"], beta=stain["beta"]),
        RandomRot90(),
        RandomFlip(aug["p_hflip"], aug["p_vflip"]),
        ToTensor(),
        ColorJitter(aug["brightness"], aug["contrast"], aug["saturation"]),
    ])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", "-c", default="config.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    data_cfg, train_cfg = cfg["data"], cfg["train"]
    slides = make_slides(data_cfg["n_slides"], data_cfg["slide_size"], seed)
    dataset = TileDataset(slides, data_cfg["tile_size"], transform=build_transform(cfg))
    loader = DataLoader(dataset, batch_size=train_cfg["batch_size"], shuffle=True,
                        num_workers=data_cfg["num_workers"], drop_last=True,
                        generator=torch.Generator().manual_seed(seed))

    model = TileNet(width=cfg["model"]["width"])
    opt = torch.optim.AdamW(model.parameters(), lr=train_cfg["lr"], weight_decay=train_cfg["weight_decay"])
    loss_fn = nn.CrossEntropyLoss()
    meter = evalkit.Meter()

    correct = seen = 0
    for epoch in range(train_cfg["epochs"]):
        model.train()
        for images, labels in loader:
            meter.batch((images, labels))
            logits = model(images)
            loss = loss_fn(logits, labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int((logits.argmax(1) == labels).sum())
            seen += labels.numel()
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"tiles": len(dataset), "train_acc": correct / max(seen, 1), "epochs_run": epoch + 1})


if __name__ == "__main__":
    main()
