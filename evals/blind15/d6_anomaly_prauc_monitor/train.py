"""Weakly supervised anomaly detector for multichannel sensor windows.

The training loop tracks the area under the precision-recall curve (average precision) and the
best-F1 operating threshold over the most recent batches, as an alerting team would tune it.

    python train.py @args.txt
"""
import argparse
import math
from collections import deque

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler

import evalkit


def parse_args(argv=None):
    p = argparse.ArgumentParser(fromfile_prefix_chars="@")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-windows", type=int, default=8192)
    p.add_argument("--channels", type=int, default=12)
    p.add_argument("--window", type=int, default=48)
    p.add_argument("--anomaly-rate", type=float, default=0.05)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--metric-window", type=int, default=50, help="batches in the PR-curve window")
    p.add_argument("--bootstrap", type=int, default=0, help="bootstrap resamples for the AP interval")
    p.add_argument("--log-every", type=int, default=50)
    return p.parse_args(argv)


def synth_windows(rng, n, channels, length, anomaly_rate):
    """Pump-station telemetry: per-channel periodic load + drift + noise; anomalies are spikes,
    stuck sensors and slow drifts in one channel."""
    t = np.arange(length, dtype=np.float64)
    period = rng.uniform(8, 30, size=(n, channels, 1))
    phase = rng.uniform(0, 2 * np.pi, size=(n, channels, 1))
    x = np.sin(2 * np.pi * t / period + phase) + 0.25 * rng.standard_normal((n, channels, length))
    labels = (rng.random(n) < anomaly_rate).astype(np.int64)
    for i in np.flatnonzero(labels):
        c, kind = rng.integers(channels), rng.integers(3)
        at = rng.integers(4, length - 8)
        if kind == 0:
            x[i, c, at:at + 2] += rng.choice([-1, 1]) * rng.uniform(2.0, 4.0)
        elif kind == 1:
            x[i, c, at:] = x[i, c, at]
        else:
            x[i, c] += np.linspace(0, rng.uniform(1.5, 3.0), length)
    # label noise: operators miss some events and flag some normal windows
    flip = rng.random(n) < 0.02
    labels[flip] = 1 - labels[flip]
    return x.astype(np.float32), labels


class SensorWindows(Dataset):
    """Indexed by a list of window ids (the loader's sampler yields whole batches)."""

    def __init__(self, x, y):
        self.x, self.y = torch.from_numpy(x), torch.from_numpy(y).float()

    def __len__(self):
        return len(self.y)

    def __getitem__(self, idx):
        idx = torch.as_tensor(idx, dtype=torch.long)
        return self.x[idx], self.y[idx]


class Detector(nn.Module):
    """Window summary statistics per channel -> small MLP -> anomaly logit."""

    def __init__(self, channels, hidden=32):
        super().__init__()
        self.norm = nn.LayerNorm(4 * channels)
        self.mlp = nn.Sequential(nn.Linear(4 * channels, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x):
        d = x[..., 1:] - x[..., :-1]
        feats = torch.cat([x.std(-1), d.abs().amax(-1), d.std(-1), (x[..., -8:].mean(-1) - x[..., :8].mean(-1))], 1)
        return self.mlp(self.norm(feats)).squeeze(-1)


class Callback:
    def on_step_end(self, trainer, step, loss, scores, targets):
        pass

    def on_train_end(self, trainer):
        pass


class PRCurveMonitor(Callback):
    """Average precision and the best-F1 threshold over the last `window` batches."""

    def __init__(self, window, n_boot=0, seed=0):
        self.scores = deque(maxlen=window)
        self.targets = deque(maxlen=window)
        self.history = []
        self.intervals = []
        self.n_boot = n_boot
        self.rng = np.random.default_rng(seed)

    def bootstrap_interval(self, boot):
        """90% percentile interval of the bootstrap APs (None while no resample has a positive)."""
        if not boot:
            return None
        boot.sort()
        k = len(boot) - 1
        return boot[int(0.05 * k)], boot[int(math.ceil(0.95 * k))]

    @staticmethod
    def pr_summary(scores, targets):
        n_pos = sum(targets)
        if n_pos == 0:
            return None
        ranked = sorted(zip(scores, targets), key=lambda st: -st[0])
        tp = fp = 0
        prev_recall = ap = 0.0
        best_f1, best_thr = -1.0, math.inf
        i, n = 0, len(ranked)
        while i < n:
            thr = ranked[i][0]
            while i < n and ranked[i][0] == thr:  # all tied scores cross the threshold together
                tp += ranked[i][1]
                fp += 1 - ranked[i][1]
                i += 1
            precision = tp / (tp + fp)
            recall = tp / n_pos
            ap += (recall - prev_recall) * precision
            prev_recall = recall
            f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
            if f1 > best_f1:
                best_f1, best_thr = f1, thr
        return ap, best_f1, best_thr

    def on_step_end(self, trainer, step, loss, scores, targets):
        self.scores.append(scores.tolist())
        self.targets.append([int(t) for t in targets.tolist()])
        flat_s = [s for batch in self.scores for s in batch]
        flat_t = [t for batch in self.targets for t in batch]
        summary = self.pr_summary(flat_s, flat_t)
        boot = []
        for _ in range(self.n_boot):
            idx = self.rng.integers(0, len(flat_s), size=len(flat_s)).tolist()
            res = self.pr_summary([flat_s[i] for i in idx], [flat_t[i] for i in idx])
            if res is not None:
                boot.append(res[0])
        self.intervals.append(self.bootstrap_interval(boot))
        if summary is not None:
            self.history.append(summary)
            trainer.state["ap"], trainer.state["best_f1"], trainer.state["threshold"] = summary


class ProgressPrinter(Callback):
    def __init__(self, every):
        self.every = every

    def on_step_end(self, trainer, step, loss, scores, targets):
        if step % self.every == 0:
            st = trainer.state
            print(f"step {step} loss {loss.item():.4f} ap {st.get('ap', float('nan')):.4f} "
                  f"f1 {st.get('best_f1', float('nan')):.4f} thr {st.get('threshold', float('nan')):.4f}", flush=True)


class Trainer:
    def __init__(self, model, optimizer, loader, callbacks, meter):
        self.model, self.optimizer, self.loader = model, optimizer, loader
        self.callbacks = callbacks
        self.meter = meter
        self.state = {}
        self.global_step = 0

    def fit(self, epochs):
        pos_weight = torch.tensor(4.0)
        for _ in range(epochs):
            self.model.train()
            for batch in self.loader:
                self.meter.batch(batch)
                x, y = batch
                logits = self.model(x)
                loss = F.binary_cross_entropy_with_logits(logits, y.float(), pos_weight=pos_weight)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.global_step += 1
                scores = torch.sigmoid(logits.detach())
                for cb in self.callbacks:
                    cb.on_step_end(self, self.global_step, loss, scores, y)
                self.meter.step(loss)
                if self.meter.done():
                    return
        for cb in self.callbacks:
            cb.on_train_end(self)


def main():
    args = parse_args()
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(1)
    rng = np.random.default_rng(args.seed)
    x, y = synth_windows(rng, args.num_windows, args.channels, args.window, args.anomaly_rate)
    dataset = SensorWindows(x, y)
    sampler = BatchSampler(RandomSampler(dataset, generator=torch.Generator().manual_seed(args.seed)),
                           batch_size=args.batch_size, drop_last=True)
    # batch_size=None: each sampler item is already a batch of indices
    loader = DataLoader(dataset, sampler=sampler, batch_size=None, num_workers=args.num_workers)
    model = Detector(args.channels)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    pr = PRCurveMonitor(args.metric_window, args.bootstrap, seed=args.seed + 1)
    trainer = Trainer(model, optimizer, loader, [pr, ProgressPrinter(args.log_every)], evalkit.Meter())
    trainer.fit(args.epochs)
    trainer.meter.report({
        "ap": [h[0] for h in pr.history],
        "best_f1": [h[1] for h in pr.history],
        "threshold": [h[2] for h in pr.history],
        "ap_interval": pr.intervals,
    })


if __name__ == "__main__":
    main()
