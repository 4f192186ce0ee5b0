import numpy as np
import torch
from torch.utils.data import Dataset

from .book import depth_imbalance, mid_price, parse_line, spread, total_depth


class OrderBookWindows(Dataset):
    """Sample t: features of the `window` snapshots ending at event t; label: the sign of the mid move
    over the next `horizon` events (down / flat / up)."""

    def __init__(self, lines, levels, window, lags, horizon, flat_band_bps):
        self.lines = lines
        self.levels = levels
        self.window = window
        self.lags = lags
        self.horizon = horizon
        self.flat_band = flat_band_bps * 1e-4
        self.first = window - 1 + max(lags)
        self.last = len(lines) - 1 - horizon

    def __len__(self):
        return self.last - self.first + 1

    def __getitem__(self, idx):
        t = self.first + idx
        lo = t - self.window + 1 - max(self.lags)
        snaps = [parse_line(line) for line in self.lines[lo:t + self.horizon + 1]]
        mids = [mid_price(s) for s in snaps]
        rows = []
        for k in range(t - self.window + 1, t + 1):
            s, j = snaps[k - lo], k - lo
            m = mids[j]
            row = [spread(s) / m * 1e4, depth_imbalance(s, self.levels), total_depth(s, self.levels) / 1e4]
            for lag in self.lags:
                row.append((m / mids[j - lag] - 1.0) * 1e4)
            rows.append(row)
        fwd = mids[t + self.horizon - lo] / mids[t - lo] - 1.0
        label = 0 if fwd < -self.flat_band else (2 if fwd > self.flat_band else 1)
        return torch.from_numpy(np.asarray(rows, dtype=np.float32)), torch.tensor(label)
