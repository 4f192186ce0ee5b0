"""Streaming dataset over tracker exports: random window and mirror per visit, kinematic features."""
from collections import namedtuple

import numpy as np
import torch
from torch.utils.data import IterableDataset

from . import kinematics as K
from .simulate import gaussian_taps, simulate_clip

TrackSample = namedtuple("TrackSample", ["features", "bounces", "shot"])


class TrackStream(IterableDataset):
    def __init__(self, cfg, seed):
        super().__init__()
        v, d, f = cfg["video"], cfg["data"], cfg["features"]
        gen = np.random.default_rng(seed)
        self.exports, self.shots = [], []
        for _ in range(d["clips"]):
            text, shot = simulate_clip(gen, d["frames_per_clip"], v["width"], v["height"], v["fps"], v["ground_y"])
            self.exports.append(text)
            self.shots.append(shot)
        self.width, self.height, self.ground_y = float(v["width"]), float(v["height"]), float(v["ground_y"])
        self.dt = 1.0 / v["fps"]
        self.window = d["window"]
        self.frames_per_clip = d["frames_per_clip"]
        self.min_conf = d["min_confidence"]
        self.taps = gaussian_taps(f["smooth_sigma"], f["smooth_radius"])
        self.rng = np.random.default_rng(seed + 1)

    def __len__(self):
        return len(self.exports)

    def features(self, idx, start, mirror):
        points = K.parse_track(self.exports[idx], self.min_conf)
        xs, ys = K.fill_gaps(points, start, self.window)
        if mirror:
            xs = [self.width - x for x in xs]
        xs = K.gaussian_smooth(xs, self.taps)
        ys = K.gaussian_smooth(ys, self.taps)
        vx, vy = K.derivative(xs, self.dt), K.derivative(ys, self.dt)
        ax, ay = K.derivative(vx, self.dt), K.derivative(vy, self.dt)
        kappa = K.curvature(vx, vy, ax, ay)
        hits = K.bounces(ys, vy, self.ground_y)
        rows = [
            [x / self.width, y / self.height, a / 1000.0, b / 1000.0, c / 10000.0, e / 10000.0, min(max(k * 100.0, -5.0), 5.0), h]
            for x, y, a, b, c, e, k, h in zip(xs, ys, vx, vy, ax, ay, kappa, hits)
        ]
        return torch.tensor(rows, dtype=torch.float32).T.contiguous(), int(sum(hits))

    def __iter__(self):
        order = self.rng.permutation(len(self.exports))
        for idx in order:
            start = int(self.rng.integers(0, self.frames_per_clip - self.window + 1))
            mirror = bool(self.rng.random() < 0.5)
            feats, n_bounces = self.features(int(idx), start, mirror)
            yield TrackSample(feats, min(n_bounces, 3), self.shots[idx])
