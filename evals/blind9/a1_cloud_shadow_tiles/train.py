"""Land-cover classification on Sentinel-2-like tiles with a cloud/shadow-aware input stack."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from s2tiles import TileDataset, make_tiles
from s2tiles import transforms as T


class TileNet(nn.Module):
    def __init__(self, in_ch, num_classes, width=32, dropout=0.1):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_ch, width, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(width, 2 * width, 3, stride=2, padding=1), nn.ReLU(inplace=True),
        )
        self.head = nn.Sequential(nn.Dropout(dropout), nn.Linear(2 * width, num_classes))

    def forward(self, x):
        x = self.features(x)
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        seed = cfg["seed"]
        random.seed(seed)
        np.random.seed(seed)
        torch.manual_seed(seed)
        torch.set_num_threads(1)

        d = cfg["data"]
        tiles, labels = make_tiles(d["num_tiles"], d["tile_size"], d["num_classes"],
                                   d["cloud_fraction"], seed)
        transform = T.Compose([
            T.ToReflectance(),
            T.CloudShadowMask(**cfg["masking"]),
            T.SpectralIndices(),
            T.RandomDihedral(seed=seed + 1),
            T.ToTensor(),
        ])
        self.dataset = TileDataset(tiles, labels, transform=transform)
        g = torch.Generator()
        g.manual_seed(seed)
        self.loader = DataLoader(self.dataset, batch_size=d["batch_size"], shuffle=True,
                                 num_workers=d["num_workers"], generator=g, drop_last=True)
        m = cfg["model"]
        self.model = TileNet(6 + 3 + 4, d["num_classes"], m["width"], m["dropout"])
        o = cfg["optim"]
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=o["lr"],
                                           weight_decay=o["weight_decay"])
        self.meter = Meter()
        self.history = {"acc": [], "cloud_frac": [], "shadow_frac": [], "water_frac": []}

    def train_epoch(self, epoch):
        self.model.train()
        for it, batch in enumerate(self.loader):
            self.meter.batch(batch)
            logits = self.model(batch["image"])
            loss = F.cross_entropy(logits, batch["label"])
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            self.meter.step(loss)

            with torch.no_grad():
                acc = (logits.argmax(1) == batch["label"]).float().mean().item()
                qa = batch["qa"]
                self.history["acc"].append(acc)
                self.history["cloud_frac"].append((qa == 1).float().mean().item())
                self.history["shadow_frac"].append((qa == 2).float().mean().item())
                self.history["water_frac"].append((qa == 3).float().mean().item())
            if it % self.cfg["log_every"] == 0:
                print(f"epoch {epoch} it {it} loss {loss.item():.4f} acc {acc:.3f}", flush=True)
            if self.meter.done():
                return False
        return True

    def fit(self):
        for epoch in range(self.cfg["optim"]["epochs"]):
            if not self.train_epoch(epoch):
                break
        h = self.history
        n = len(h["acc"])
        self.meter.report(extra={
            "train_acc_last20": round(sum(h["acc"][-20:]) / min(20, n), 6),
            "cloud_frac_mean": round(sum(h["cloud_frac"]) / n, 6),
            "shadow_frac_mean": round(sum(h["shadow_frac"]) / n, 6),
            "water_frac_mean": round(sum(h["water_frac"]) / n, 6),
        })


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    Trainer(cfg).fit()


if __name__ == "__main__":
    main()
