"""Quantile regression of parcel delivery times with calibration monitoring.

An MLP predicts seven quantiles of the delivery time; it is trained with the pinball loss.
After every optimiser step a callback scores a held-out monitor set: per-quantile pinball
loss, coverage and width of the central intervals, and a PIT calibration curve (the
predicted quantiles of each row are sorted, so crossing quantiles are rearranged first).
"""
import argparse
import bisect
import math
import random
import runpy

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import evalkit


def make_deliveries(n, n_features, rng):
    """Features of a parcel (distance, weight, hub load, weekday, ...) and its delivery hours."""
    x = rng.normal(0.0, 1.0, (n, n_features))
    x[:, 0] = rng.gamma(2.0, 1.0, n)              # distance (scaled)
    x[:, 1] = rng.lognormal(0.0, 0.6, n)          # weight
    x[:, 2] = rng.integers(0, 7, n) / 6.0         # weekday
    base = 6.0 + 5.0 * x[:, 0] + 1.5 * np.log1p(x[:, 1]) + 2.0 * np.sin(2 * np.pi * x[:, 2]) + x[:, 3:6].sum(1)
    scale = 0.8 + 1.2 * x[:, 0] + 0.5 * np.abs(x[:, 6])  # longer routes are less predictable
    noise = rng.gumbel(0.0, 1.0, n) * scale             # right-skewed delays
    return x.astype(np.float32), (base + noise).astype(np.float32)


class Deliveries(Dataset):
    def __init__(self, x, y):
        self.x, self.y = torch.from_numpy(x), torch.from_numpy(y)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, idx):
        return {"features": self.x[idx], "hours": self.y[idx]}


class QuantileMLP(nn.Module):
    def __init__(self, n_in, hidden, n_quantiles):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(),
                                 nn.Linear(hidden, n_quantiles))

    def forward(self, x):
        return self.net(x)


def pinball_loss(pred, target, taus):
    diff = target[:, None] - pred
    return torch.maximum(taus * diff, (taus - 1.0) * diff).mean()


# ----------------------------------------------------------------------------- callbacks
class Callback:
    def on_train_start(self, trainer):
        pass

    def on_batch_end(self, trainer, batch, loss):
        pass

    def on_train_end(self, trainer):
        pass


class CalibrationMonitor(Callback):
    """Scores the monitor set after every step and keeps the history of the key numbers."""

    def __init__(self, x, y, quantiles, intervals, grid):
        self.x = torch.from_numpy(x)
        self.y = y.astype(np.float64).tolist()
        self.levels = list(quantiles)
        self.intervals = [(self.levels.index(lo), self.levels.index(hi)) for lo, hi in intervals]
        self.grid = list(grid)
        self.history = {"pinball": [], "coverage": [], "ece": []}
        self.last = None

    def _pit(self, q, y):
        """Probability integral transform of y under the piecewise-linear predictive CDF."""
        lv = self.levels
        pos = bisect.bisect_left(q, y)
        if pos == 0:
            return 0.5 * lv[0]
        if pos == len(q):
            return 0.5 * (1.0 + lv[-1])
        return lv[pos - 1] + (lv[pos] - lv[pos - 1]) * (y - q[pos - 1]) / (q[pos] - q[pos - 1])

    def score(self, preds):
        levels = self.levels
        n = len(self.y)
        loss_sums = [0.0] * len(levels)
        covered = [0] * len(self.intervals)
        widths = [0.0] * len(self.intervals)
        crossings = 0
        pits = []
        for row, y in zip(preds, self.y):
            q = sorted(row)
            if q != row:
                crossings += 1
            for k, tau in enumerate(levels):
                d = y - q[k]
                loss_sums[k] += max(tau * d, (tau - 1.0) * d)
            for m, (lo, hi) in enumerate(self.intervals):
                if q[lo] <= y <= q[hi]:
                    covered[m] += 1
                widths[m] += q[hi] - q[lo]
            pits.append(self._pit(q, y))
        pits.sort()
        curve = [bisect.bisect_right(pits, g) / n for g in self.grid]
        ece = sum(abs(c - g) for c, g in zip(curve, self.grid)) / len(self.grid)
        return {
            "pinball": [s / n for s in loss_sums],
            "coverage": [c / n for c in covered],
            "width": [w / n for w in widths],
            "crossing_rate": crossings / n,
            "calibration_curve": curve,
            "ece": ece,
        }

    def on_batch_end(self, trainer, batch, loss):
        with torch.no_grad():
            preds = trainer.model(self.x).double().tolist()
        metrics = self.score(preds)
        self.history["pinball"].append(sum(metrics["pinball"]) / len(metrics["pinball"]))
        self.history["coverage"].append(metrics["coverage"][0])
        self.history["ece"].append(metrics["ece"])
        self.last = metrics


class ProgressPrinter(Callback):
    def __init__(self, every, monitor):
        self.every, self.monitor = every, monitor

    def on_batch_end(self, trainer, batch, loss):
        if trainer.step % self.every == 0:
            m = self.monitor.last
            print(f"step {trainer.step}: train pinball {loss.item():.4f} "
                  f"monitor pinball {self.monitor.history['pinball'][-1]:.4f} "
                  f"cov90 {m['coverage'][0]:.3f} ece {m['ece']:.4f} crossing {m['crossing_rate']:.3f}")


class Trainer:
    def __init__(self, model, optimizer, taus, callbacks, meter):
        self.model, self.optimizer, self.taus = model, optimizer, taus
        self.callbacks, self.meter = callbacks, meter
        self.step = 0

    def fit(self, loader, epochs):
        for cb in self.callbacks:
            cb.on_train_start(self)
        for epoch in range(epochs):
            self.model.train()
            for batch in loader:
                self.meter.batch(batch)
                loss = pinball_loss(self.model(batch["features"]), batch["hours"], self.taus)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.step += 1
                for cb in self.callbacks:
                    cb.on_batch_end(self, batch, loss)
                self.meter.step(loss)
                if self.meter.done():
                    break
            if self.meter.done():
                break
        for cb in self.callbacks:
            cb.on_train_end(self)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    args = ap.parse_args()
    s = runpy.run_path(args.settings)

    random.seed(s["SEED"])
    np.random.seed(s["SEED"])
    torch.manual_seed(s["SEED"])
    torch.set_num_threads(1)

    rng = np.random.default_rng(s["SEED"])
    x_train, y_train = make_deliveries(s["N_TRAIN"], s["N_FEATURES"], rng)
    x_mon, y_mon = make_deliveries(s["N_MONITOR"], s["N_FEATURES"], rng)
    mu, sd = x_train.mean(0), x_train.std(0)
    x_train, x_mon = (x_train - mu) / sd, (x_mon - mu) / sd

    loader = DataLoader(Deliveries(x_train, y_train), batch_size=s["BATCH_SIZE"], shuffle=True,
                        num_workers=s["NUM_WORKERS"], generator=torch.Generator().manual_seed(s["SEED"]))
    taus = torch.tensor(s["QUANTILES"], dtype=torch.float32)
    model = QuantileMLP(s["N_FEATURES"], s["HIDDEN"], len(s["QUANTILES"]))
    with torch.no_grad():  # start the quantile heads near the target's median
        model.net[-1].bias.fill_(float(np.median(y_train)))
    optimizer = torch.optim.Adam(model.parameters(), lr=s["LR"])

    monitor = CalibrationMonitor(x_mon, y_mon, s["QUANTILES"], s["INTERVALS"], s["CALIBRATION_GRID"])
    meter = evalkit.Meter()
    trainer = Trainer(model, optimizer, taus, [monitor, ProgressPrinter(s["PRINT_EVERY"], monitor)], meter)
    trainer.fit(loader, s["EPOCHS"])
    meter.report({"history": monitor.history, "final": monitor.last, "steps": trainer.step})


if __name__ == "__main__":
    main()
