"""Synthetic hourly tide-gauge records (CSV lines as published) and a window dataset over them."""
import datetime as dt
import heapq
import math
import random

import numpy as np
import torch
from torch.utils.data import IterableDataset

from tides import NODAL, SPEEDS, V0, HarmonicModel

EPOCH = dt.datetime(2019, 1, 1, tzinfo=dt.timezone.utc)


def synth_station(name, year, seed):
    """Harmonic constants and the raw CSV text of one year of hourly readings."""
    r = random.Random(f"{seed}:{name}")
    consts = {
        "M2": (r.uniform(1.2, 2.3), r.uniform(0, 360)), "S2": (r.uniform(0.4, 0.8), r.uniform(0, 360)),
        "N2": (r.uniform(0.2, 0.45), r.uniform(0, 360)), "K2": (r.uniform(0.1, 0.25), r.uniform(0, 360)),
        "K1": (r.uniform(0.05, 0.15), r.uniform(0, 360)), "O1": (r.uniform(0.05, 0.12), r.uniform(0, 360)),
        "P1": (r.uniform(0.02, 0.05), r.uniform(0, 360)), "Q1": (r.uniform(0.01, 0.04), r.uniform(0, 360)),
        "M4": (r.uniform(0.02, 0.12), r.uniform(0, 360)), "MS4": (r.uniform(0.01, 0.08), r.uniform(0, 360)),
        "2N2": (r.uniform(0.02, 0.06), r.uniform(0, 360)), "MU2": (r.uniform(0.03, 0.09), r.uniform(0, 360)),
        "NU2": (r.uniform(0.05, 0.1), r.uniform(0, 360)), "L2": (r.uniform(0.03, 0.08), r.uniform(0, 360)),
        "T2": (r.uniform(0.01, 0.04), r.uniform(0, 360)), "J1": (r.uniform(0.005, 0.02), r.uniform(0, 360)),
        "OO1": (r.uniform(0.002, 0.01), r.uniform(0, 360)), "M3": (r.uniform(0.005, 0.02), r.uniform(0, 360)),
        "MN4": (r.uniform(0.01, 0.05), r.uniform(0, 360)), "M6": (r.uniform(0.005, 0.03), r.uniform(0, 360)),
    }
    model = HarmonicModel(r.uniform(3.0, 5.0), consts)
    start = dt.datetime(year, 1, 1, tzinfo=dt.timezone.utc)
    n = 365 * 24
    hours0 = int((start - EPOCH).total_seconds() // 3600)
    # the "true" sea: the same constituents plus a slow annual Sa term the model does not know about
    tt = np.arange(hours0, hours0 + n, dtype=np.float64)
    true_tide = model.z0 + 0.08 * np.cos(2 * np.pi * tt / 8766.0 + r.uniform(0, 6.28))
    for name, (amp, lag) in consts.items():
        f, u = NODAL[name]
        true_tide = true_tide + f * amp * np.cos(np.radians(SPEEDS[name] * tt + V0[name] + u - lag))
    surge, lines = 0.0, ["time,sea_level_m,qc_flag"]
    storm = 0
    for i in range(n):
        if storm <= 0 and r.random() < 0.004:
            storm = r.randint(12, 60)
        push = r.uniform(0.02, 0.06) if storm > 0 else 0.0
        storm -= 1
        surge = 0.93 * surge + push + r.gauss(0.0, 0.015)
        t = start + dt.timedelta(hours=i)
        stamp = t.strftime("%Y-%m-%dT%H:%MZ")
        u = r.random()
        if u < 0.004:
            lines.append(f"{stamp},,9")  # missing
            continue
        level = true_tide[i] + surge + r.gauss(0.0, 0.02)
        if u > 0.997:
            level += r.choice([-1.0, 1.0]) * r.uniform(0.8, 2.0)  # spike
        lines.append(f"{stamp},{level:.3f},{1 if u < 0.99 else 2}")
    return model, "\n".join(lines)


def parse_csv(text):
    """Hours after the epoch and levels (NaN where missing or flagged bad)."""
    hours, levels = [], []
    for line in text.splitlines()[1:]:
        stamp, value, flag = line.split(",")
        t = dt.datetime.fromisoformat(stamp)
        hours.append(int((t - EPOCH).total_seconds()) // 3600)
        levels.append(float(value) if value and flag != "9" else math.nan)
    return hours, levels


def despike(x, jump):
    """Replace isolated one-sample spikes by the mean of their neighbours; fill NaN runs linearly."""
    y = list(x)
    n = len(y)
    for i in range(1, n - 1):
        a, b, c = y[i - 1], y[i], y[i + 1]
        if b - a > jump and b - c > jump or a - b > jump and c - b > jump:
            y[i] = (a + c) / 2.0
    i = 0
    while i < n:
        if math.isnan(y[i]):
            j = i
            while j < n and math.isnan(y[j]):
                j += 1
            left = y[i - 1] if i > 0 else (y[j] if j < n else 0.0)
            right = y[j] if j < n else left
            span = j - i + 1
            for k in range(i, j):
                y[k] = left + (right - left) * (k - i + 1) / span
            i = j
        else:
            i += 1
    return y


def surge_peaks(residual, k=3, separation=24):
    """The k largest local maxima of the surge, at least `separation` hours apart (declustered)."""
    cand = [(v, i) for i, v in enumerate(residual[1:-1], 1) if residual[i - 1] <= v > residual[i + 1]]
    chosen = []
    for v, i in heapq.nlargest(len(cand), cand):
        if all(abs(i - j) >= separation for _, j in chosen):
            chosen.append((v, i))
            if len(chosen) == k:
                break
    while len(chosen) < k:
        chosen.append((0.0, 0))
    return chosen


class SurgeWindows(IterableDataset):
    """Random 30-day windows: tide removed, despiked; target the next day's maximum surge."""

    def __init__(self, stations, year, window, horizon, per_epoch, jump, seed, batch_type):
        self.window, self.horizon, self.per_epoch, self.jump = window, horizon, per_epoch, jump
        self.rng = random.Random(seed + 5)
        self.batch_type = batch_type
        self.stations = []
        for name in stations:
            model, text = synth_station(name, year, seed)
            hours, levels = parse_csv(text)
            self.stations.append((name, model, hours, levels))

    def __iter__(self):
        span = self.window + self.horizon
        for _ in range(self.per_epoch):
            sid = self.rng.randrange(len(self.stations))
            name, model, hours, levels = self.stations[sid]
            start = self.rng.randrange(len(hours) - span)
            datum = self.rng.gauss(0.0, 0.05)  # gauge re-levelling between surveys
            obs = [v + datum for v in levels[start:start + span]]
            tide = model.predict(hours[start:start + span])
            residual = despike([o - p for o, p in zip(obs, tide)], self.jump)
            past, future = residual[:self.window], residual[self.window:]
            peaks = surge_peaks(past)
            daily_max = [max(past[d:d + 24]) for d in range(0, self.window, 24)]
            yield self.batch_type(
                series=torch.tensor(past, dtype=torch.float32),
                daily_max=torch.tensor(daily_max, dtype=torch.float32),
                peaks=torch.tensor([[v, i / self.window] for v, i in peaks], dtype=torch.float32),
                target=torch.tensor([max(future), float(max(future) > 0.5)], dtype=torch.float32),
                station=sid,
            )
