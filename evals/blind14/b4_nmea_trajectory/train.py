"""Transport-mode classification (walk / bike / car / train) from windows of raw NMEA logs."""
import argparse
import collections
import configparser
import datetime
import math
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, Sampler

import evalkit
from geo import FEATURES, segment_features
from nmea import TrackReader, sentence, to_ddmm

MODES = {"walk": (1.4, 0.3, 25.0), "bike": (5.0, 1.0, 12.0), "car": (13.0, 4.0, 6.0), "train": (24.0, 2.0, 1.5)}
TrajBatch = collections.namedtuple("TrajBatch", "features mask mode")


def simulate_log(rng, mode, n_fixes, corrupt_rate, void_rate):
    """A 1 Hz receiver log: RMC + GGA + GSA per fix, GSV every fifth; returns (CRLF text, mode index)."""
    mean_speed, speed_sd, turn_sd = MODES[mode]
    lat, lon = rng.uniform(35.0, 60.0), rng.uniform(-10.0, 30.0)
    alt, heading, speed = rng.uniform(0, 600), rng.uniform(0, 360), mean_speed
    t = datetime.datetime(2023, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(
        seconds=int(rng.integers(0, 365 * 86400)))
    lines = []
    for i in range(n_fixes):
        t += datetime.timedelta(seconds=1 if rng.random() > 0.03 else 2)
        speed = max(0.0, speed + 0.2 * (mean_speed - speed) + rng.normal(0, speed_sd * 0.3))
        if mode == "car" and rng.random() < 0.01:
            speed = 0.0
        heading = (heading + rng.normal(0, turn_sd)) % 360
        dn, de = speed * math.cos(math.radians(heading)), speed * math.sin(math.radians(heading))
        lat += dn / 111320.0
        lon += de / (111320.0 * math.cos(math.radians(lat)))
        alt += rng.normal(0, 0.3)
        nlat, nlon = lat + rng.normal(0, 2.5e-5), lon + rng.normal(0, 3.5e-5)
        hhmmss, ddmmyy = t.strftime("%H%M%S.00"), t.strftime("%d%m%y")
        la, lah = to_ddmm(nlat, True)
        lo, loh = to_ddmm(nlon, False)
        status = "V" if rng.random() < void_rate else "A"
        sats, hdop = int(rng.integers(5, 13)), rng.uniform(0.6, 2.8)
        lines.append(sentence(["GPRMC", hhmmss, status, la, lah, lo, loh, f"{speed / 0.514444:.2f}",
                               f"{heading:.1f}", ddmmyy, "", "", "A"]))
        lines.append(sentence(["GPGGA", hhmmss, la, lah, lo, loh, "1", f"{sats:02d}", f"{hdop:.1f}",
                               f"{alt:.1f}", "M", "47.0", "M", "", ""]))
        lines.append(sentence(["GPGSA", "A", "3"] + [f"{int(s):02d}" for s in rng.choice(32, 12, replace=False)]
                              + [f"{hdop * 1.4:.1f}", f"{hdop:.1f}", f"{hdop * 1.1:.1f}"]))
        if i % 5 == 0:
            for part in range(1, 4):
                sv = [f"{int(v):02d}" for v in rng.integers(1, 90, 12)]
                lines.append(sentence(["GPGSV", "3", str(part), "12"] + sv))
    for j in np.flatnonzero(rng.random(len(lines)) < corrupt_rate):
        k = int(rng.integers(1, len(lines[j]) - 4))
        lines[j] = lines[j][:k] + chr(ord(lines[j][k]) ^ 0x01) + lines[j][k + 1:]
    return "\r\n".join(lines) + "\r\n"


class NMEAWindowDataset(Dataset):
    """Indexed by (track, first fix): reads the track's fixes, drops fixes at random (missed epochs),
    and turns the window into padded per-segment features."""

    def __init__(self, cfg, generator):
        rng = np.random.default_rng(cfg.getint("data", "seed"))
        names = sorted(MODES)
        self.window = cfg.getint("windows", "window")
        self.dropout = cfg.getfloat("windows", "dropout")
        self.generator = generator
        self.logs, self.modes = [], []
        for k in range(cfg.getint("data", "n_tracks")):
            mode = names[k % len(names)]
            self.logs.append(simulate_log(rng, mode, cfg.getint("data", "fixes_per_track"),
                                          cfg.getfloat("data", "corrupt_rate"), cfg.getfloat("data", "void_rate")))
            self.modes.append(names.index(mode))
        # index pass: how many usable fixes each track has (the fixes themselves are re-read on access)
        self.n_fixes = [len(TrackReader(log).fixes()) for log in self.logs]

    def __len__(self):
        return sum(n - self.window + 1 for n in self.n_fixes)

    def __getitem__(self, key):
        track, start = key
        fixes = TrackReader(self.logs[track]).fixes(limit=start + self.window)[start:start + self.window]
        draws = torch.rand(len(fixes), generator=self.generator).tolist()
        kept = [f for i, (f, u) in enumerate(zip(fixes, draws)) if i in (0, len(fixes) - 1) or u >= self.dropout]
        rows = segment_features(kept)
        return rows, self.modes[track]


class TrackWindowBatchSampler(Sampler):
    """Each batch: tracks drawn uniformly, then a window start uniformly inside each track."""

    def __init__(self, n_fixes, window, batch_size, batches_per_epoch, generator):
        self.n_fixes, self.window = n_fixes, window
        self.batch_size, self.batches_per_epoch = batch_size, batches_per_epoch
        self.generator = generator

    def __len__(self):
        return self.batches_per_epoch

    def __iter__(self):
        for _ in range(self.batches_per_epoch):
            tracks = torch.randint(len(self.n_fixes), (self.batch_size,), generator=self.generator).tolist()
            yield [(t, int(torch.randint(0, self.n_fixes[t] - self.window + 1, (1,), generator=self.generator)))
                   for t in tracks]


class PadSegments:
    def __init__(self, length):
        self.length = length

    def __call__(self, items):
        feats = torch.zeros(len(items), self.length, len(FEATURES))
        mask = torch.zeros(len(items), self.length, dtype=torch.bool)
        for b, (rows, _) in enumerate(items):
            if rows:
                feats[b, :len(rows)] = torch.tensor(rows, dtype=torch.float32)
                mask[b, :len(rows)] = True
        return TrajBatch(feats, mask, torch.tensor([m for _, m in items]))


class SegmentEncoder(nn.Module):
    def __init__(self, n_features, hidden, n_classes):
        super().__init__()
        self.norm = nn.LayerNorm(n_features)
        self.conv = nn.Sequential(nn.Conv1d(n_features, hidden, 5, padding=2), nn.GELU(),
                                  nn.Conv1d(hidden, hidden, 5, padding=2), nn.GELU())
        self.head = nn.Linear(2 * hidden, n_classes)

    def forward(self, x, mask):
        h = self.conv(self.norm(x).transpose(1, 2)).transpose(1, 2)
        m = mask.unsqueeze(-1).float()
        mean = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        peak = h.masked_fill(~mask.unsqueeze(-1), -1e4).max(1).values
        return self.head(torch.cat([mean, peak], dim=1))


def train_one_epoch(model, loader, optimizer, meter, totals):
    model.train()
    for batch in loader:
        meter.batch(batch)
        logits = model(batch.features, batch.mask)
        loss = nn.functional.cross_entropy(logits, batch.mode)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        meter.step(loss)
        totals["correct"] += int((logits.argmax(1) == batch.mode).sum())
        totals["seen"] += len(batch.mode)
        totals["segments"] += int(batch.mask.sum())
        if meter.done():
            break
    return loss.item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    seed = cfg.getint("data", "seed")
    torch.set_num_threads(1)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    dataset = NMEAWindowDataset(cfg, torch.Generator().manual_seed(seed + 1))
    w = cfg["windows"]
    sampler = TrackWindowBatchSampler(dataset.n_fixes, dataset.window, w.getint("batch_size"),
                                      w.getint("batches_per_epoch"), torch.Generator().manual_seed(seed + 2))
    loader = DataLoader(dataset, batch_sampler=sampler, num_workers=w.getint("num_workers"),
                        collate_fn=PadSegments(dataset.window - 1))
    model = SegmentEncoder(len(FEATURES), cfg.getint("train", "hidden"), len(MODES))
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.getfloat("train", "lr"))
    meter = evalkit.Meter()
    totals = {"correct": 0, "seen": 0, "segments": 0}
    for epoch in range(cfg.getint("train", "epochs")):
        last = train_one_epoch(model, loader, optimizer, meter, totals)
        print(f"epoch {epoch} loss {last:.4f} acc {totals['correct'] / totals['seen']:.3f}")
        if meter.done():
            break
    meter.report(extra=totals)


if __name__ == "__main__":
    main()
