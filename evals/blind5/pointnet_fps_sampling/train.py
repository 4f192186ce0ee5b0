"""Point-cloud classification with an FPS + kNN set-abstraction layer and a tiny PointNet."""
import argparse
import tomllib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from sampling import farthest_point_sample, knn_group
from shapes import CLASSES, make_shapes


class PrimitiveClouds(Dataset):
    def __init__(self, cfg, seed):
        d = cfg["data"]
        self.clouds, self.labels = make_shapes(d["num_shapes"], d["points_per_shape"], seed)
        self.n_centroids = d["num_centroids"]
        self.k = d["neighbours"]
        self.jitter = d["jitter_sigma"]
        self.scale_range = d["scale_range"]
        self.rng = np.random.default_rng(seed + 1)

    def __len__(self):
        return len(self.clouds)

    def __getitem__(self, idx):
        pts = self.clouds[idx]
        theta = self.rng.uniform(0, 2 * np.pi)
        scale = self.rng.uniform(*self.scale_range)
        c, s = np.cos(theta), np.sin(theta)
        x = (c * pts[:, 0] - s * pts[:, 1]) * scale
        y = (s * pts[:, 0] + c * pts[:, 1]) * scale
        z = pts[:, 2] * scale
        pts = np.stack([x, y, z], axis=1) + self.rng.normal(0.0, self.jitter, pts.shape)
        start = int(self.rng.integers(0, len(pts)))
        centroids = pts[farthest_point_sample(pts, self.n_centroids, start)]
        groups = knn_group(pts, centroids, self.k)
        return (torch.from_numpy(centroids.astype(np.float32)),
                torch.from_numpy(groups.astype(np.float32)),
                int(self.labels[idx]))


class TinyPointNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.local = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 32), nn.ReLU())
        self.glob = nn.Sequential(nn.Linear(32 + 3, 64), nn.ReLU())
        self.head = nn.Linear(64, n_classes)

    def forward(self, centroids, groups):
        local = self.local(groups).amax(dim=2)                  # [B, C, 32]
        feat = self.glob(torch.cat([local, centroids], dim=-1))  # [B, C, 64]
        return self.head(feat.amax(dim=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="pn.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    seed = cfg["seed"]
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    ds = PrimitiveClouds(cfg, seed)
    gen = torch.Generator()
    gen.manual_seed(seed)
    tc = cfg["train"]
    loader = DataLoader(ds, batch_size=tc["batch_size"], shuffle=True, drop_last=True,
                        num_workers=tc["workers"], generator=gen)
    model = TinyPointNet(len(CLASSES))
    opt = torch.optim.Adam(model.parameters(), lr=tc["lr"])
    meter = Meter()
    curve = []
    for epoch in range(tc["epochs"]):
        seen, correct, total_loss = 0, 0, 0.0
        for centroids, groups, labels in loader:
            meter.batch((centroids, groups, labels))
            logits = model(centroids, groups)
            loss = F.cross_entropy(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            seen += labels.numel()
            correct += int((logits.argmax(1) == labels).sum())
            total_loss += loss.item() * labels.numel()
            if meter.done():
                break
        curve.append({"epoch": epoch, "loss": total_loss / seen, "acc": correct / seen})
        print(curve[-1])
        if meter.done():
            break
    meter.report(extra={"curve": curve})


if __name__ == "__main__":
    main()
