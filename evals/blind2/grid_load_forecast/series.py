from datetime import datetime, timezone

import numpy as np
import torch
from torch.utils.data import Dataset

from calendar_features import HOLIDAY_ORDINALS, calendar_features

T0 = int(datetime(2022, 1, 1, tzinfo=timezone.utc).timestamp())


def synthetic_load(hours, seed):
    """Hourly grid load (MW): daily and weekly cycles, seasonal swing, holiday dips, AR(1) noise."""
    rng = np.random.default_rng(seed)
    t = np.arange(hours)
    day = (T0 // 86400 + t // 24)
    hour = t % 24
    dow = (day + 3) % 7  # 1970-01-01 was a Thursday
    load = 900 + 250 * np.exp(-((hour - 18) ** 2) / 10) + 120 * np.exp(-((hour - 9) ** 2) / 6)
    load = load - 140 * (dow >= 5) + 180 * np.cos(2 * np.pi * t / (24 * 365.25))
    ordinals = day + 719163  # date.fromtimestamp(0).toordinal()
    load = load - 200 * np.isin(ordinals, HOLIDAY_ORDINALS)
    noise = np.zeros(hours)
    eps = rng.normal(0, 25, hours)
    for i in range(1, hours):
        noise[i] = 0.9 * noise[i - 1] + eps[i]
    return (load + noise).astype(np.float32)


class LoadWindows(Dataset):
    def __init__(self, load, lookback, horizon, stride, start, end, mu, sigma):
        self.load = load
        self.lookback, self.horizon = lookback, horizon
        self.mu, self.sigma = mu, sigma
        self.starts = list(range(start, end - lookback - horizon + 1, stride))

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, i):
        s = self.starts[i]
        span = self.lookback + self.horizon
        cal = np.array([calendar_features(T0 + 3600 * (s + k)) for k in range(span)], dtype=np.float32)
        scaled = (self.load[s:s + span] - self.mu) / self.sigma
        past = np.concatenate([scaled[:self.lookback, None], cal[:self.lookback]], axis=1)
        return {
            "past": torch.from_numpy(past),
            "future_calendar": torch.from_numpy(cal[self.lookback:]),
            "target": torch.from_numpy(scaled[self.lookback:].copy()),
        }
