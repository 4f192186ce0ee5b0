import argparse
import random
import time
import tomllib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

from data import CONTOURS, IntonationClips
from evalkit import Meter
from features import FrameAnalyzer


class ContourNet(nn.Module):
    def __init__(self, in_features, channels, num_classes):
        super().__init__()
        self.norm = nn.BatchNorm1d(in_features)
        self.conv1 = nn.Conv1d(in_features, channels, 5, padding=2)
        self.conv2 = nn.Conv1d(channels, channels, 5, padding=2)
        self.conv3 = nn.Conv1d(channels, channels, 3, padding=1)
        self.fc = nn.Linear(2 * channels, num_classes)

    def forward(self, x):  # x: [B, T, F]
        h = self.norm(x.transpose(1, 2))
        h = F.relu(self.conv1(h))
        h = F.relu(self.conv2(h))
        h = F.relu(self.conv3(h))
        return self.fc(torch.cat([h.mean(-1), h.amax(-1)], 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="settings.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    a, fr, v, p, tr = cfg["audio"], cfg["frames"], cfg["vad"], cfg["pitch"], cfg["train"]
    analyzer = FrameAnalyzer(a["sample_rate"], fr["frame_length"], fr["hop_length"], p["fmin"], p["fmax"],
                             v["energy_threshold"], v["zcr_threshold"], v["hangover"])
    dataset = IntonationClips(a["num_clips"], a["sample_rate"], a["clip_seconds"], a["crop_seconds"],
                              analyzer, seed)
    g = torch.Generator().manual_seed(seed)
    loader = DataLoader(dataset, batch_size=tr["batch_size"], shuffle=True, generator=g,
                        num_workers=tr["num_workers"], drop_last=True)
    model = ContourNet(5, tr["channels"], len(CONTOURS))
    opt = torch.optim.Adam(model.parameters(), lr=tr["lr"])

    meter = Meter()
    step = 0
    stats = {"voiced_frac": [], "f0_mean": [], "acc": []}
    t0 = time.time()
    for epoch in range(tr["epochs"]):
        model.train()
        for feats, labels in loader:
            meter.batch((feats, labels))
            logits = model(feats)
            loss = F.cross_entropy(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1

            voiced = feats[..., 2]
            stats["voiced_frac"].append(voiced.mean().item())
            stats["f0_mean"].append((feats[..., 3] * voiced).sum().item() / max(1.0, voiced.sum().item()))
            stats["acc"].append((logits.argmax(1) == labels).float().mean().item())
            if step % tr["log_interval"] == 0:
                print(f"[{epoch}:{step}] loss={loss.item():.4f} acc={stats['acc'][-1]:.3f} "
                      f"voiced={stats['voiced_frac'][-1]:.3f} ({time.time() - t0:.1f}s)", flush=True)
            if meter.done():
                break
        if meter.done():
            break

    meter.report(extra={k: round(float(np.mean(vals)), 6) for k, vals in stats.items()})


if __name__ == "__main__":
    main()
