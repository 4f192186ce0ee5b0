"""Semi-supervised anomaly detection on host telemetry, with streaming PR metrics logged every step.

    python train.py --settings settings.py
"""
import argparse
import math
import random
import runpy
from collections import deque

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Sampler

import evalkit
from metrics import average_precision, best_f1_threshold

FIELDS = ["cpu", "mem", "disk_io", "net_in", "net_out", "p99_ms", "errors", "threads", "gc_ms", "queue",
          "conn", "temp_c"]


def generate_records(n, rate, seed):
    """Telemetry lines as an agent ships them: host=web-07,ts=...,cpu=0.41,...,label=0"""
    rng = np.random.default_rng(seed)
    base = rng.normal(0.0, 1.0, size=(n, len(FIELDS)))
    base[:, 1] = 0.6 * base[:, 0] + 0.8 * base[:, 1]
    base[:, 5] = 0.5 * base[:, 9] + 0.7 * base[:, 5]
    label = rng.random(n) < rate
    kinds = rng.integers(0, 3, size=n)
    for i in np.flatnonzero(label):
        if kinds[i] == 0:
            base[i, [5, 6]] += rng.uniform(1.5, 4.0)
        elif kinds[i] == 1:
            base[i, [0, 8]] += rng.uniform(1.0, 3.0)
        else:
            base[i, 1] = -0.6 * base[i, 0] + rng.normal(0.0, 0.3)
    lines = []
    for i in range(n):
        kv = ",".join(f"{name}={v:.4f}" for name, v in zip(FIELDS, base[i]))
        lines.append(f"host=web-{i % 17:02d},ts={1767225600 + 15 * i},{kv},label={int(label[i])}")
    return lines


class TelemetryDataset(Dataset):
    def __init__(self, lines):
        feats, labels = [], []
        for line in lines:
            rec = dict(part.split("=", 1) for part in line.split(","))
            feats.append([float(rec[f]) for f in FIELDS])
            labels.append(int(rec["label"]))
        self.x = torch.tensor(feats, dtype=torch.float32)
        self.y = torch.tensor(labels, dtype=torch.float32)
        self.labels = labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class StratifiedBatchSampler(Sampler):
    """Each batch holds a fixed number of anomalies (drawn with replacement) plus shuffled normals."""

    def __init__(self, labels, batch_size, pos_per_batch, seed):
        self.pos = [i for i, y in enumerate(labels) if y]
        self.neg = [i for i, y in enumerate(labels) if not y]
        self.batch_size, self.pos_per_batch = batch_size, pos_per_batch
        self.generator = torch.Generator().manual_seed(seed)

    def __len__(self):
        return len(self.neg) // (self.batch_size - self.pos_per_batch)

    def __iter__(self):
        per = self.batch_size - self.pos_per_batch
        order = torch.randperm(len(self.neg), generator=self.generator).tolist()
        for b in range(len(self)):
            negs = [self.neg[j] for j in order[b * per:(b + 1) * per]]
            picks = torch.randint(len(self.pos), (self.pos_per_batch,), generator=self.generator).tolist()
            yield sorted(negs + [self.pos[j] for j in picks])


def collate(samples):
    xs, ys = zip(*samples)
    return torch.stack(xs), torch.stack(ys)


class DetectorModule(nn.Module):
    """Lightning-style module: the network plus training_step and optimiser."""

    def __init__(self, dim, hidden, lr):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 1))
        self.lr = lr

    def forward(self, x):
        return self.net(x).squeeze(-1)

    def training_step(self, batch):
        x, y = batch
        logits = self(x)
        loss = F.binary_cross_entropy_with_logits(logits, y)
        return loss, torch.sigmoid(logits.detach())

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


class StreamingPRLogger:
    """on_train_batch_end hook: AUPRC and the best-F1 threshold over the last `window` batches."""

    def __init__(self, window, n_thresholds, log_every):
        self.scores = deque(maxlen=window)
        self.labels = deque(maxlen=window)
        self.n_thresholds, self.log_every = n_thresholds, log_every
        self.history = []

    def on_train_batch_end(self, step, batch, probs):
        self.scores.append(probs.tolist())
        self.labels.append([int(v) for v in batch[1].tolist()])
        scores = [s for chunk in self.scores for s in chunk]
        labels = [y for chunk in self.labels for y in chunk]
        ap = average_precision(scores, labels)
        f1, thr = best_f1_threshold(scores, labels, self.n_thresholds)
        self.history.append((ap, f1, thr))
        if step % self.log_every == 0:
            print(f"step {step} auprc {ap:.4f} best_f1 {f1:.4f} @ {thr:.2f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    args = ap.parse_args()
    s = runpy.run_path(args.settings)
    torch.set_num_threads(1)
    random.seed(s["SEED"])
    np.random.seed(s["SEED"])
    torch.manual_seed(s["SEED"])

    ds = TelemetryDataset(generate_records(s["NUM_RECORDS"], s["ANOMALY_RATE"], s["SEED"]))
    sampler = StratifiedBatchSampler(ds.labels, s["BATCH_SIZE"], s["ANOMALIES_PER_BATCH"], s["SEED"] + 1)
    loader = DataLoader(ds, batch_sampler=sampler, collate_fn=collate, num_workers=s["NUM_WORKERS"])
    module = DetectorModule(len(FIELDS), s["HIDDEN"], s["LR"])
    opt = module.configure_optimizers()
    logger = StreamingPRLogger(s["METRIC_WINDOW_BATCHES"], s["F1_THRESHOLDS"], s["LOG_EVERY"])
    meter = evalkit.Meter()

    step = 0
    for epoch in range(s["EPOCHS"]):
        for batch in loader:
            meter.batch(batch)
            loss, probs = module.training_step(batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            logger.on_train_batch_end(step, batch, probs)
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break
    last_ap, last_f1, last_thr = logger.history[-1]
    meter.report({"auprc": last_ap, "best_f1": last_f1, "best_threshold": last_thr,
                  "mean_auprc": math.fsum(h[0] for h in logger.history) / len(logger.history)})


if __name__ == "__main__":
    main()
