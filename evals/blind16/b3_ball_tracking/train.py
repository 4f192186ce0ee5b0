"""Bounce detection for ball tracks from a broadcast tennis/volleyball detector.

Each sample is one rally: noisy per-frame ball detections (pixel x, y, NaN when missed) turned into smoothed
per-frame kinematic features; the model labels the frames where the ball bounces.

    python train.py tracking.ini
"""
import configparser
import math
import sys
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset

import evalkit

TrackBatch = namedtuple("TrackBatch", ["features", "bounces", "track_ids"])
FEATURES = ("x", "y", "vx", "vy", "ax", "ay", "speed", "curvature", "bounce_cand", "since_bounce")


def simulate_rally(rng, n, width, height, fps):
    """Ball centre per frame (pixels, y grows downwards) and the frames where it hits the ground."""
    ground = height * rng.uniform(0.78, 0.9)
    g = rng.uniform(900.0, 1400.0) / (fps * fps)
    x, y = rng.uniform(0.2, 0.8) * width, rng.uniform(0.2, 0.5) * height
    vx, vy = rng.choice([-1.0, 1.0]) * rng.uniform(6.0, 16.0), rng.uniform(-8.0, 2.0)
    restitution = rng.uniform(0.55, 0.75)
    xs, ys, hit = np.empty(n), np.empty(n), np.zeros(n, dtype=np.float32)
    for t in range(n):
        vy += g
        x += vx
        y += vy
        if y >= ground:
            y = ground - (y - ground)
            vy = -abs(vy) * restitution
            hit[t] = 1.0
            if rng.random() < 0.35:  # struck by a player after the bounce
                vx = -math.copysign(rng.uniform(8.0, 18.0), vx)
                vy = -rng.uniform(10.0, 18.0)
        if x < 0.05 * width or x > 0.95 * width:
            vx = -vx
        xs[t], ys[t] = x, y
    return np.clip(xs, 1.0, width - 1.0), np.clip(ys, 1.0, height - 1.0), hit


def detections(rng, xs, ys, sigma, miss_rate):
    dx = xs + rng.normal(0.0, sigma, xs.shape)
    dy = ys + rng.normal(0.0, sigma, ys.shape)
    miss = rng.random(xs.shape) < miss_rate
    dx[miss] = np.nan
    dy[miss] = np.nan
    return np.clip(dx, 1.0, None), np.clip(dy, 1.0, None)


def fill_gaps(values):
    """Linear interpolation across runs of missed detections."""
    out = list(values)
    n = len(out)
    i = 0
    while i < n:
        if out[i] != out[i]:  # NaN
            j = i
            while j < n and out[j] != out[j]:
                j += 1
            if i == 0 or j == n:  # clip starts or ends on a miss: hold the nearest detection
                hold = out[j] if i == 0 else out[i - 1]
                for k in range(i, j):
                    out[k] = hold
            else:
                a, b = out[i - 1], out[j]
                span = j - (i - 1)
                for k in range(i, j):
                    out[k] = a + (b - a) * (k - (i - 1)) / span
            i = j
        else:
            i += 1
    return out


def gaussian_taps(radius, sigma):
    return [math.exp(-0.5 * (k / sigma) ** 2) for k in range(-radius, radius + 1)]


def smooth(values, taps):
    """Gaussian moving average; at the ends only the taps inside the track are used and renormalised."""
    n, r = len(values), len(taps) // 2
    out = []
    for i in range(n):
        s = 0.0
        wsum = 0.0
        for k, w in enumerate(taps):
            j = i + k - r
            if 0 <= j < n:
                s += w * values[j]
                wsum += w
        out.append(s / wsum)
    return out


def derivative(values, fps):
    n = len(values)
    half = 0.5 * fps
    d = [(values[1] - values[0]) * fps]
    d += [(values[i + 1] - values[i - 1]) * half for i in range(1, n - 1)]
    d.append((values[n - 1] - values[n - 2]) * fps)
    return d


class RallyFeaturizer:
    def __init__(self, width, height, fps, radius, sigma, margin, min_gap):
        self.width, self.height, self.fps = width, height, fps
        self.taps = gaussian_taps(radius, sigma)
        self.margin, self.min_gap = margin, min_gap

    def __call__(self, det_x, det_y, ground):
        x = smooth(fill_gaps(det_x.tolist()), self.taps)
        y = smooth(fill_gaps(det_y.tolist()), self.taps)
        vx = smooth(derivative(x, self.fps), self.taps)
        vy = smooth(derivative(y, self.fps), self.taps)
        ax, ay = derivative(vx, self.fps), derivative(vy, self.fps)
        rows = []
        last_bounce = -10 ** 6
        for t in range(len(x)):
            v2 = vx[t] * vx[t] + vy[t] * vy[t]
            speed = math.sqrt(v2)
            curvature = (vx[t] * ay[t] - vy[t] * ax[t]) / (v2 * speed + 1e-6)
            cand = 0.0
            if 0 < t and vy[t - 1] > 0.0 >= vy[t] and y[t] > ground - self.margin and t - last_bounce >= self.min_gap:
                cand = 1.0
                last_bounce = t
            since = min(t - last_bounce, 60) / 60.0
            rows.append([x[t] / self.width, y[t] / self.height, vx[t] / 1000.0, vy[t] / 1000.0,
                         ax[t] / 1e4, ay[t] / 1e4, speed / 1000.0, curvature * 100.0, cand, since])
        return torch.tensor(rows, dtype=torch.float32)


class RallyStream(IterableDataset):
    """Random clips of recorded matches: each match is one long detector log with its ground line."""

    def __init__(self, cfg, featurizer):
        d = cfg["data"]
        self.seed = d.getint("seed")
        self.n = d.getint("tracks_per_epoch")
        self.length = d.getint("track_len")
        width, height, fps = d.getint("frame_width"), d.getint("frame_height"), d.getfloat("fps")
        rng = np.random.default_rng(self.seed)
        self.matches = []
        for _ in range(d.getint("num_matches")):
            xs, ys, hit = simulate_rally(rng, d.getint("match_len"), width, height, fps)
            dx, dy = detections(rng, xs, ys, d.getfloat("detection_sigma_px"), d.getfloat("miss_rate"))
            self.matches.append((dx, dy, hit, float(ys.max())))
        self.featurizer = featurizer
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        rng = np.random.default_rng([self.seed, self.epoch])
        for i in range(self.n):
            m = int(rng.integers(len(self.matches)))
            dx, dy, hit, ground = self.matches[m]
            start = int(rng.integers(0, len(dx) - self.length + 1))
            stop = start + self.length
            feats = self.featurizer(dx[start:stop], dy[start:stop], ground)
            yield feats, torch.from_numpy(hit[start:stop].copy()), m * 100000 + start


def collate_tracks(samples):
    feats, hits, ids = zip(*samples)
    return TrackBatch(torch.stack(feats), torch.stack(hits), torch.tensor(ids))


class BounceTagger(nn.Module):
    def __init__(self, in_dim, hidden):
        super().__init__()
        self.conv1 = nn.Conv1d(in_dim, hidden, 5, padding=2)
        self.conv2 = nn.Conv1d(hidden, hidden, 5, padding=4, dilation=2)
        self.out = nn.Conv1d(hidden, 1, 1)

    def forward(self, feats):
        h = F.gelu(self.conv1(feats.transpose(1, 2)))
        h = F.gelu(self.conv2(h)) + h
        return self.out(h).squeeze(1)


class Trainer:
    def __init__(self, model, loader, cfg):
        t = cfg["trainer"]
        self.model, self.loader = model, loader
        self.epochs, self.log_every = t.getint("epochs"), t.getint("log_every")
        self.opt = torch.optim.Adam(model.parameters(), lr=t.getfloat("lr"))
        self.pos_weight = torch.tensor(20.0)
        self.meter = evalkit.Meter()
        self.global_step = 0
        self.hits_seen = 0.0

    def training_step(self, batch):
        logits = self.model(batch.features)
        return F.binary_cross_entropy_with_logits(logits, batch.bounces, pos_weight=self.pos_weight)

    def fit(self):
        for epoch in range(self.epochs):
            self.loader.dataset.set_epoch(epoch)
            for batch in self.loader:
                self.meter.batch(batch)
                loss = self.training_step(batch)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                self.meter.step(loss)
                self.global_step += 1
                self.hits_seen += float(batch.bounces.sum())
                if self.global_step % self.log_every == 0:
                    print(f"epoch {epoch} step {self.global_step} loss {loss.item():.4f}")
                if self.meter.done():
                    return
        return


def main(path):
    cfg = configparser.ConfigParser()
    cfg.read(path)
    torch.set_num_threads(1)
    seed = cfg["data"].getint("seed")
    np.random.seed(seed)
    torch.manual_seed(seed)
    d, f = cfg["data"], cfg["features"]
    featurizer = RallyFeaturizer(d.getint("frame_width"), d.getint("frame_height"), d.getfloat("fps"),
                                 f.getint("smooth_radius"), f.getfloat("smooth_sigma"),
                                 f.getfloat("bounce_margin_px"), f.getint("min_bounce_gap"))
    loader = DataLoader(RallyStream(cfg, featurizer), batch_size=cfg["loader"].getint("batch_size"),
                        num_workers=cfg["loader"].getint("num_workers"), collate_fn=collate_tracks)
    trainer = Trainer(BounceTagger(len(FEATURES), cfg["trainer"].getint("hidden")), loader, cfg)
    trainer.fit()
    trainer.meter.report({"global_step": trainer.global_step, "hits_seen": trainer.hits_seen})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tracking.ini")
