"""Train a small CNN to classify nuclear phenotypes from raw widefield tiles.

    python train.py --config config.yaml
"""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, Dataset

import evalkit
from acquisition import acquire
import transforms as T


class TileDataset(Dataset):
    def __init__(self, tiles, labels, transform):
        self.tiles = tiles
        self.labels = labels
        self.transform = transform

    def __len__(self):
        return len(self.tiles)

    def __getitem__(self, idx):
        return self.transform(self.tiles[idx]), self.labels[idx]


class PhenotypeNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 5, stride=2, padding=2)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(32, 32, 3, stride=2, padding=1)
        self.head = nn.Linear(32, num_classes)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.relu(self.conv3(x))
        return self.head(x.mean(dim=(2, 3)))


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    torch.set_num_threads(1)
    seed_everything(cfg["seed"])

    d = cfg["data"]
    tiles, labels, dark, flat = acquire(d["num_tiles"], d["tile_size"], d["num_classes"],
                                        d["dark_level"], cfg["seed"])
    transform = T.Compose([
        T.DecodeRaw(d["tile_size"], d["tile_size"]),
        T.FlatFieldCorrection(dark, flat),
        T.SubtractBackground(d["background_window"]),
        T.RandomCrop(d["crop_size"]),
        T.RandomHorizontalFlip(),
        T.RandomVerticalFlip(),
        T.ToTensor(),
        T.LogNormalize(mean=3.0, std=2.5),
    ])
    dataset = TileDataset(tiles, labels, transform)
    lc = cfg["loader"]
    loader = DataLoader(dataset, batch_size=lc["batch_size"], shuffle=lc["shuffle"],
                        num_workers=lc["num_workers"], drop_last=True,
                        generator=torch.Generator().manual_seed(cfg["seed"]))

    model = PhenotypeNet(d["num_classes"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])
    meter = evalkit.Meter()
    step = 0
    epoch_loss = []
    correct = seen = 0
    for epoch in range(cfg["train"]["epochs"]):
        model.train()
        running, n_batches = 0.0, 0
        for images, targets in loader:
            meter.batch((images, targets))
            logits = model(images)
            loss = F.cross_entropy(logits, targets)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            running += loss.item()
            n_batches += 1
            correct += int((logits.argmax(1) == targets).sum())
            seen += len(targets)
            if step % cfg["train"]["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
            if meter.done():
                break
        epoch_loss.append(running / max(n_batches, 1))
        if meter.done():
            break
    meter.report(extra={"epoch_loss": epoch_loss, "train_acc": correct / max(seen, 1), "steps": step})


if __name__ == "__main__":
    main()
