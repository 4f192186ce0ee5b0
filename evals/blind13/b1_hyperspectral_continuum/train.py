"""Train a small spectral-spatial CNN on hyperspectral patches.

    python train.py --config hsi.yaml
"""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
from hsi import (Compose, ContinuumRemoval, DropBands, PatchDataset, RandomDihedral, SpectralAngles,
                 SpectralJitter, ToReflectance, ToTensor, reference_library, synthesize_scene)


class SpectralSpatialNet(nn.Module):
    def __init__(self, in_ch, n_classes, width=32):
        super().__init__()
        self.spectral = nn.Conv2d(in_ch, width, 1)
        self.spatial = nn.Conv2d(width, width, 3, padding=1)
        self.head = nn.Linear(width, n_classes)

    def forward(self, x):
        x = F.relu(self.spectral(x))
        x = F.relu(self.spatial(x))
        return self.head(x.mean(dim=(2, 3)))


def build(cfg):
    sc = cfg["scene"]
    scene = synthesize_scene(cfg["seed"], sc["height"], sc["width"], sc["bands"])
    aug_rng = np.random.default_rng(cfg["seed"] + 1)
    drop = DropBands(scene["wavelengths"])
    library = reference_library(np.asarray(drop.wavelengths), cfg["library"])
    transform = Compose([
        ToReflectance(scene["scale"]),
        drop,
        ContinuumRemoval(),
        SpectralAngles(library),
        RandomDihedral(aug_rng),
        SpectralJitter(aug_rng, cfg["augment"]["jitter_sigma"]),
        ToTensor(),
    ])
    centres = PatchDataset.sample_centres(scene["labels"], cfg["patch_size"], cfg["per_class"],
                                          np.random.default_rng(cfg["seed"] + 2))
    ds = PatchDataset(scene, centres, cfg["patch_size"], transform)
    in_ch = len(drop.wavelengths) + len(cfg["library"])
    return ds, in_ch, len(scene["class_names"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="hsi.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    ds, in_ch, n_classes = build(cfg)
    lc = cfg["loader"]
    loader = DataLoader(ds, batch_size=lc["batch_size"], shuffle=lc["shuffle"],
                        num_workers=lc["num_workers"], drop_last=lc["drop_last"],
                        generator=torch.Generator().manual_seed(cfg["seed"]))
    model = SpectralSpatialNet(in_ch, n_classes)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])
    meter = evalkit.Meter()
    correct = seen = 0
    for epoch in range(cfg["epochs"]):
        model.train()
        for i, (x, y) in enumerate(loader):
            meter.batch((x, y))
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int((logits.argmax(1) == y).sum())
            seen += len(y)
            if i % cfg["log_every"] == 0:
                print(f"epoch {epoch} it {i} loss {loss.item():.4f}", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"train_acc": correct / max(seen, 1), "samples": len(ds)})


if __name__ == "__main__":
    main()
