"""Train a tiny lesion classifier on hair-removed, colour-normalised dermoscopy crops.

    python train.py --config derm.yaml
"""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

import evalkit
from dermkit import (BorderIrregularity, Compose, HairRemoval, LesionArchive, LesionDataset, RandomCrop,
                     RandomFlip, ShadesOfGrey, ToTensor)


class LesionNet(nn.Module):
    def __init__(self, n_features=3):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(16 + n_features, 2)

    def forward(self, image, features):
        return self.head(torch.cat([self.body(image), features], dim=1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    dcfg, hcfg = cfg["data"], cfg["hair_removal"]
    archive = LesionArchive(dcfg["num_images"], dcfg["raw_size"], seed)
    aug_gen = torch.Generator().manual_seed(seed + 1)
    transform = Compose([
        RandomCrop(dcfg["crop_size"], aug_gen),
        RandomFlip(aug_gen),
        HairRemoval(hcfg["patch_size"], hcfg["se_radius"], hcfg["threshold"]),
        ShadesOfGrey(cfg["colour"]["power"]),
        BorderIrregularity(),
        ToTensor(),
    ])
    dataset = LesionDataset(archive, transform)
    loader = DataLoader(dataset, batch_size=dcfg["batch_size"], shuffle=True, drop_last=True,
                        num_workers=dcfg["num_workers"], generator=torch.Generator().manual_seed(seed + 2))

    model = LesionNet()
    opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
    loss_fn = nn.CrossEntropyLoss()
    meter = evalkit.Meter()
    hair_seen = 0.0
    for epoch in range(cfg["train"]["epochs"]):
        for images, features, labels in loader:
            meter.batch((images, features, labels))
            logits = model(images, features)
            loss = loss_fn(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            hair_seen += float(features[:, 2].sum())
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"epochs_started": epoch + 1, "hair_fraction_sum": round(hair_seen, 6)})


if __name__ == "__main__":
    main()
