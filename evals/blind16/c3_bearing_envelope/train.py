"""Bearing fault classifier (normal / inner race / ball / outer race) on envelope features."""
import argparse
import collections
import math
import random
import tomllib

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, IterableDataset

import evalkit
from features import EnvelopeFeaturizer

FAULTS = ["normal", "inner_race", "ball", "outer_race"]
# characteristic frequencies as multiples of shaft speed (6205-2RS deep groove bearing)
FAULT_ORDERS = {"normal": None, "inner_race": 5.415, "ball": 2.357, "outer_race": 3.585}

VibBatch = collections.namedtuple("VibBatch", ["envelope", "stats", "label"])


def simulate_record(fault, shaft_hz, cfg, rng):
    fs = cfg["fs"]
    n = int(cfg["record_seconds"] * fs)
    t = np.arange(n) / fs
    sig = np.zeros((2, n))
    for h, amp in ((1, 0.12), (2, 0.05), (3, 0.02)):
        phase = rng.uniform(0, 2 * np.pi, size=2)
        sig += amp * np.sin(2 * np.pi * h * shaft_hz * t[None, :] + phase[:, None])
    order = FAULT_ORDERS[fault]
    if order is not None:
        period = fs / (order * shaft_hz)
        times = np.arange(0.0, n - 1, period)
        times = times + rng.normal(0.0, 0.01 * period, size=len(times))
        idx = np.clip(np.round(times).astype(int), 0, n - 1)
        impulses = np.zeros(n)
        amp = rng.uniform(0.6, 1.4, size=len(idx))
        if fault == "inner_race":  # load-zone modulation at shaft rate
            amp *= 0.6 + 0.4 * np.cos(2 * np.pi * shaft_hz * idx / fs)
        impulses[idx] = amp
        tr = np.arange(int(0.004 * fs)) / fs
        ring = np.exp(-900.0 * tr) * np.sin(2 * np.pi * cfg["resonance_hz"] * tr)
        burst = np.convolve(impulses, ring)[:n]
        sig[0] += 1.5 * burst
        sig[1] += 0.6 * burst
    sig += rng.normal(0.0, cfg["noise_std"], size=sig.shape)
    return sig


class VibrationStream(IterableDataset):
    """Streams random windows out of the recordings, with a random sensor gain and fresh noise."""

    def __init__(self, records, featurizer, window, windows_per_epoch, gain_range, noise_std, seed):
        self.records = records
        self.featurizer = featurizer
        self.window = window
        self.windows_per_epoch = windows_per_epoch
        self.gain_range = gain_range
        self.noise_std = noise_std
        self.rng = np.random.default_rng(seed)

    def __iter__(self):
        produced = 0
        while produced < self.windows_per_epoch:
            sig, label = self.records[int(self.rng.integers(len(self.records)))]
            start = int(self.rng.integers(0, sig.shape[1] - self.window))
            gain = self.rng.uniform(*self.gain_range)
            window = sig[:, start:start + self.window] * gain
            window = window + self.rng.normal(0.0, 0.25 * self.noise_std, size=window.shape)
            env, stats = self.featurizer(window)
            yield torch.from_numpy(env), torch.from_numpy(stats), label
            produced += 1


def collate(items):
    envs, stats, labels = zip(*items)
    return VibBatch(torch.stack(envs), torch.stack(stats), torch.tensor(labels, dtype=torch.long))


class EnvelopeNet(nn.Module):
    def __init__(self, n_stats, n_classes):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(2, 16, 7, padding=3), nn.ReLU(), nn.MaxPool1d(4),
            nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
        )
        self.stats = nn.Sequential(nn.BatchNorm1d(n_stats), nn.Linear(n_stats, 32), nn.ReLU())
        self.head = nn.Linear(64, n_classes)

    def forward(self, env, stats):
        return self.head(torch.cat([self.conv(env).flatten(1), self.stats(stats)], dim=1))


class Trainer:
    def __init__(self, model, loader, cfg, meter):
        self.model = model
        self.loader = loader
        self.cfg = cfg
        self.meter = meter
        self.opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
        self.global_step = 0
        self.confusion = [[0] * len(FAULTS) for _ in FAULTS]

    def training_step(self, batch):
        logits = self.model(batch.envelope, batch.stats)
        loss = nn.functional.cross_entropy(logits, batch.label)
        for t, p in zip(batch.label.tolist(), logits.argmax(1).tolist()):
            self.confusion[t][p] += 1
        return loss

    def fit(self):
        self.model.train()
        for epoch in range(self.cfg["max_epochs"]):
            for batch in self.loader:
                self.meter.batch(batch)
                loss = self.training_step(batch)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                self.meter.step(loss)
                self.global_step += 1
                if self.global_step % self.cfg["log_every"] == 0:
                    print(f"epoch {epoch} step {self.global_step} loss {loss.item():.4f}")
                if self.meter.done():
                    return


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    rng = np.random.default_rng(seed)
    scfg, fcfg, lcfg = cfg["signal"], cfg["features"], cfg["loader"]
    records = []
    for load, shaft in zip(scfg["loads"], scfg["shaft_hz"]):
        for label, fault in enumerate(FAULTS):
            records.append((simulate_record(fault, shaft, scfg, rng), label))
    featurizer = EnvelopeFeaturizer(scfg["fs"], fcfg["cutoff_hz"], fcfg["taps"], fcfg["decimate"], fcfg["bands"])
    stream = VibrationStream(records, featurizer, fcfg["window"], lcfg["windows_per_epoch"],
                             lcfg["gain_range"], scfg["noise_std"], seed + 1)
    loader = DataLoader(stream, batch_size=lcfg["batch_size"], num_workers=lcfg["num_workers"],
                        collate_fn=collate)
    n_stats = 2 * (5 + len(fcfg["bands"]))
    model = EnvelopeNet(n_stats, len(FAULTS))
    meter = evalkit.Meter()
    trainer = Trainer(model, loader, cfg["trainer"], meter)
    trainer.fit()
    acc = sum(trainer.confusion[i][i] for i in range(len(FAULTS))) / max(1, sum(map(sum, trainer.confusion)))
    meter.report(extra={"confusion": trainer.confusion, "train_acc": acc})


if __name__ == "__main__":
    main()
