"""Predict stop-level lateness from schedule features of a GTFS-like feed.

    python train.py --ini transit.ini
"""
import argparse
import configparser

import torch
from torch import nn
from torch.utils.data import DataLoader

from evalkit import Meter
from gtfs.dataset import N_FEATURES, StopTimesBlocks
from gtfs.feed import generate_stop_times


def masked_mse(pred, target, mask):
    diff = (pred - target) ** 2
    return (diff * mask).sum() / mask.sum().clamp(min=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ini", default="transit.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.ini)
    feed, fcfg, tcfg = cfg["feed"], cfg["features"], cfg["train"]

    torch.set_num_threads(1)
    torch.manual_seed(feed.getint("seed"))

    rows = generate_stop_times(feed.getint("seed"), feed.getint("routes"), feed.getint("directions"),
                               feed.getint("service_days"), feed.getint("min_trips"), feed.getint("max_trips"),
                               feed.getfloat("missing_observation_rate"))
    dataset = StopTimesBlocks(rows, fcfg.getint("max_trips"), fcfg.getint("max_stops"),
                              fcfg.getint("headway_scale_s"), fcfg.getint("late_scale_s"))
    loader = DataLoader(dataset, batch_size=tcfg.getint("batch_size"), shuffle=True,
                        num_workers=tcfg.getint("num_workers"))
    print(f"{len(rows)} stop_times rows in {len(dataset)} blocks")

    hidden = tcfg.getint("hidden")
    model = nn.Sequential(nn.Linear(N_FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                          nn.Linear(hidden, 1))
    opt = torch.optim.SGD(model.parameters(), lr=tcfg.getfloat("lr"), momentum=0.9)
    meter = Meter()

    observed = 0
    for epoch in range(tcfg.getint("epochs")):
        for i, batch in enumerate(loader):
            meter.batch(batch)
            pred = model(batch["x"]).squeeze(-1)
            loss = masked_mse(pred, batch["y"], batch["mask"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            observed += int(batch["mask"].sum())
            if i % 10 == 0:
                print(f"epoch {epoch} batch {i} loss {loss.item():.4f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"observed_rows": observed})


if __name__ == "__main__":
    main()
