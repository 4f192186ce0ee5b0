"""Predict a rider's session RPE from a 20-minute power-meter window."""
import argparse
import time
import tomllib

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from evalkit import Meter
from rides import RideWindows


class RPENet(nn.Module):
    def __init__(self, n_scalars, width=16):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(1, width, 5, padding=2), nn.ReLU(),
            nn.Conv1d(width, width, 5, padding=2, stride=2), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1), nn.Flatten(),
        )
        self.head = nn.Sequential(nn.Linear(width + n_scalars, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, trace, scalars):
        return self.head(torch.cat([self.conv(trace), scalars], dim=1)).squeeze(-1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="ride.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    dataset = RideWindows(cfg, cfg["seed"])
    loader = DataLoader(dataset, batch_size=cfg["loader"]["batch_size"],
                        num_workers=cfg["loader"]["num_workers"], drop_last=True)
    n_scalars = 3 + len(cfg["windows"]["zone_bounds"]) + 1
    model = RPENet(n_scalars)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
    meter = Meter()

    it = iter(loader)
    step, rides_seen, t0 = 0, set(), time.time()
    while True:
        try:
            batch = next(it)
        except StopIteration:
            break
        meter.batch(batch)
        pred = model(batch["trace"], batch["scalars"])
        loss = nn.functional.mse_loss(pred, batch["rpe"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        step += 1
        rides_seen.update(batch["ride_id"].tolist())
        if step % cfg["train"]["log_every"] == 0:
            print(f"step {step:4d}  mse {loss.item():.4f}  rides {len(rides_seen)}  "
                  f"{time.time() - t0:.1f}s", flush=True)
        if meter.done():
            break
    meter.report(extra={"rides_seen": len(rides_seen), "steps": step})


if __name__ == "__main__":
    main()
