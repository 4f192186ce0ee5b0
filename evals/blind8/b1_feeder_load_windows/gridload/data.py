import torch
from torch.utils.data import Dataset

from .features import degree_hours, lag_diff, rolling_mean, rolling_std, zscore_rows
from .synth import make_feeders


class FeederWindows(Dataset):
    """(10, lookback) feature windows and the standardised next-day mean load."""

    def __init__(self, cfg, seed):
        d = cfg["data"]
        self.history, self.lookback, self.horizon = d["history"], d["lookback"], d["horizon"]
        self.roll, self.roll_long, self.hdd_base = d["roll"], d["roll_long"], d["hdd_base"]
        self.load, self.temp = make_feeders(d["feeders"], d["hours"], seed)
        span = self.history + self.lookback + self.horizon
        self.index = [(f, s) for f in range(d["feeders"])
                      for s in range(0, d["hours"] - span + 1, d["stride"])]

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        f, s = self.index[i]
        h, L = self.history, self.lookback
        load = self.load[f, s:s + h + L + self.horizon].tolist()
        temp = self.temp[f, s:s + h + L].tolist()
        past = load[:h + L]
        mean24 = rolling_mean(past, self.roll, h)
        std24 = rolling_std(past, self.roll, h, mean24)
        mean72 = rolling_mean(past, self.roll_long, h)
        std72 = rolling_std(past, self.roll_long, h, mean72)
        rows = [
            past[h:],
            mean24,
            std24,
            mean72,
            std72,
            lag_diff(past, 24, h),
            lag_diff(past, 168, h),
            temp[h:],
            rolling_mean(temp, self.roll, h),
            degree_hours(temp, self.hdd_base, h),
        ]
        z, stats = zscore_rows(rows)
        m, sd = stats[0]
        future = load[h + L:]
        target = (sum(future) / len(future) - m) / (sd + 1e-6)
        return torch.tensor(z, dtype=torch.float32), torch.tensor(target, dtype=torch.float32)
