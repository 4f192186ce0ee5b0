from collections import deque

import numpy as np
import torch
from torch.utils.data import Dataset


def rolling_extrema(values, w):
    """Trailing-window max and min (window w, partial at the start) with monotonic deques."""
    maxq, minq = deque(), deque()
    hi, lo = [], []
    for i, v in enumerate(values):
        while maxq and values[maxq[-1]] <= v:
            maxq.pop()
        maxq.append(i)
        while minq and values[minq[-1]] >= v:
            minq.pop()
        minq.append(i)
        if maxq[0] <= i - w:
            maxq.popleft()
        if minq[0] <= i - w:
            minq.popleft()
        hi.append(values[maxq[0]])
        lo.append(values[minq[0]])
    return hi, lo


def channel_features(col, mu, sd, w):
    z = [(v - mu) / sd for v in col]
    dz = [0.0] + [b - a for a, b in zip(z, z[1:])]
    hi, lo = rolling_extrema(z, w)
    return [z, dz, hi, lo]


class ScadaWindows(Dataset):
    def __init__(self, X, state, cfg, seed):
        self.X, self.state = X, state
        self.window, self.roll = cfg["window"], cfg["roll"]
        self.jitter = cfg["scale_jitter"]
        self.starts = list(range(0, len(X) - self.window, cfg["stride"]))
        self.mu = X.mean(axis=0).astype(np.float64).tolist()
        self.sd = X.std(axis=0).astype(np.float64).tolist()
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, i):
        s = self.starts[i]
        win = self.X[s:s + self.window].astype(np.float64)
        win = win * self.rng.uniform(1 - self.jitter, 1 + self.jitter, size=(1, win.shape[1]))
        rows = []
        for c, col in enumerate(win.T.tolist()):
            rows.extend(channel_features(col, self.mu[c], self.sd[c], self.roll))
        label = int(np.bincount(self.state[s:s + self.window], minlength=4).argmax())
        return torch.tensor(rows, dtype=torch.float32), label
