"""Forecast next-hour occupancy of parking bays from their raw sensor event feeds."""
import argparse
import configparser
import random

import numpy as np
import torch
import torch.nn.functional as F

import evalkit
from parkcast.dataset import BatchIterator, BayWindowDataset
from parkcast.feed import make_feeds
from parkcast.model import NextHourForecaster


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ini", default="parking.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.ini)

    seed = cfg.getint("run", "seed")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    feeds = make_feeds(cfg.getint("feed", "num_bays"), cfg.getint("feed", "num_days"),
                       cfg.getint("feed", "heartbeat_minutes"), cfg.getint("feed", "start_epoch_s"), seed)
    w = cfg["window"]
    hours = range(w.getint("first_hour"), w.getint("last_hour") + 1)
    dataset = BayWindowDataset(feeds, cfg.getint("feed", "start_epoch_s"), w.getint("history_hours"),
                               w.getint("horizon_minutes"), w.getint("slot_minutes"), hours)
    loader = BatchIterator(dataset, cfg.getint("loader", "batch_size"), cfg.getboolean("loader", "shuffle"),
                           cfg.getboolean("loader", "drop_last"), seed=seed)
    model = NextHourForecaster(n_hist=dataset.n_hist, n_next=dataset.n_next)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.getfloat("optim", "lr"),
                            weight_decay=cfg.getfloat("optim", "weight_decay"))
    meter = evalkit.Meter()
    step = 0
    for epoch in range(cfg.getint("run", "epochs")):
        for batch in loader:
            meter.batch(batch)
            pred = model(batch["history"], batch["heartbeats"], batch["context"])
            loss = F.mse_loss(pred, batch["target"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            if step % cfg.getint("run", "log_every") == 0:
                print(f"epoch {epoch} step {step}/{len(loader)} mse {loss.item():.4f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"windows": len(dataset)})


if __name__ == "__main__":
    main()
