"""In-game win probability from play-by-play state (score, clock, possession, fouls, runs)."""
import argparse
import configparser

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from features import FEATURE_NAMES, parse_event, state_at
from pbp_feed import simulate_game


class PlayByPlayDataset(Dataset):
    """One sample per (game, event): the state after that event, labelled with the final result."""

    def __init__(self, feeds, period_seconds, periods, run_window):
        self.feeds = feeds
        self.period_seconds = period_seconds
        self.periods = periods
        self.run_window = run_window
        self.index = []
        for g, lines in enumerate(feeds):
            period_start = 0
            for e, line in enumerate(lines):
                if e and line.split(",", 1)[0] != lines[e - 1].split(",", 1)[0]:
                    period_start = e
                self.index.append((g, period_start, e))
        self.home_won = []
        for lines in feeds:
            last = parse_event(lines[-1])
            self.home_won.append(1.0 if last["home"] > last["away"] else 0.0)

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        g, start, e = self.index[i]
        state = state_at(self.feeds[g], start, e, self.period_seconds, self.periods, self.run_window)
        x = torch.tensor(state.vector(), dtype=torch.float32)
        y = torch.tensor(self.home_won[g], dtype=torch.float32)
        return x, y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.ini")
    opts = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(opts.settings)

    torch.set_num_threads(1)
    seed = cfg.getint("data", "seed")
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    period_seconds = cfg.getint("features", "period_seconds")
    periods = cfg.getint("features", "periods")
    feeds = [simulate_game(rng, int(rng.integers(cfg.getint("data", "min_events"), cfg.getint("data", "max_events") + 1)),
                           periods, period_seconds)
             for _ in range(cfg.getint("data", "games"))]
    dataset = PlayByPlayDataset(feeds, period_seconds, periods, cfg.getint("features", "run_window_seconds"))
    loader = DataLoader(dataset, batch_size=cfg.getint("loader", "batch_size"),
                        shuffle=cfg.getboolean("loader", "shuffle"), num_workers=cfg.getint("loader", "num_workers"),
                        generator=torch.Generator().manual_seed(seed))

    model = nn.Sequential(nn.Linear(len(FEATURE_NAMES), 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                          nn.Linear(256, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.getfloat("optim", "lr"), momentum=0.9)
    criterion = nn.BCEWithLogitsLoss()
    meter = Meter()
    max_steps = cfg.getint("optim", "max_steps")
    log_interval = cfg.getint("optim", "log_interval")
    step = 0
    running = 0.0
    finished = False
    for epoch in range(cfg.getint("optim", "epochs")):
        for x, y in loader:
            meter.batch((x, y))
            loss = criterion(model(x).squeeze(1), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            step += 1
            running += loss.item()
            if step % log_interval == 0:
                print(f"[{epoch}] step {step} avg loss {running / log_interval:.4f}", flush=True)
                running = 0.0
            if meter.done() or step >= max_steps:
                finished = True
                break
        if finished:
            break
    meter.report()


if __name__ == "__main__":
    main()
