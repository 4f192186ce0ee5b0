"""Train a small CNN to regress lane polynomials from bird's-eye road frames.

Targets come from the classical sliding-window lane finder run on each frame (pseudo labels).
"""
import argparse
import time

import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from lanes import (BirdsEyeLaneDataset, Compose, Downsample, SlidingWindowLaneFit, Threshold,
                   ToTensor)


class LaneNet(nn.Module):
    def __init__(self, channels=(8, 16), n_out=6):
        super().__init__()
        c1, c2 = channels
        self.features = nn.Sequential(
            nn.Conv2d(1, c1, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(c1, c2, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d((4, 4)),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(c2 * 16, 32), nn.ReLU(inplace=True),
                                  nn.Linear(32, n_out))

    def forward(self, x):
        return self.head(self.features(x))


def build_loader(cfg):
    d, s, l = cfg["data"], cfg["search"], cfg["loader"]
    transform = Compose([
        Threshold(d["threshold"]),
        SlidingWindowLaneFit(n_windows=s["n_windows"], margin=s["margin"], minpix=s["minpix"],
                             hist_fraction=s["hist_fraction"]),
        Downsample(l["downsample"]),
        ToTensor(),
    ])
    ds = BirdsEyeLaneDataset(d["num_frames"], d["height"], d["width"], seed=cfg["seed"],
                             speckle_rate=d["speckle_rate"], dashed_right=d["dashed_right"],
                             transform=transform)
    g = torch.Generator()
    g.manual_seed(cfg["seed"])
    return DataLoader(ds, batch_size=l["batch_size"], shuffle=l["shuffle"],
                      num_workers=l["num_workers"], generator=g, drop_last=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    loader = build_loader(cfg)
    model = LaneNet(tuple(cfg["model"]["channels"]))
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])
    crit = nn.SmoothL1Loss(beta=0.05)
    meter = Meter()

    step, lane_px_total, t0 = 0, 0, time.time()
    for epoch in range(cfg["optim"]["epochs"]):
        model.train()
        for batch in loader:
            meter.batch(batch)
            pred = model(batch["image"])
            loss = crit(pred, batch["target"])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            lane_px_total += int(batch["lane_pixels"].sum())
            if step % cfg["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} "
                      f"({time.time() - t0:.1f}s)", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"lane_pixels_total": lane_px_total})


if __name__ == "__main__":
    main()
