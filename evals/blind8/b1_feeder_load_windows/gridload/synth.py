"""Synthetic hourly feeder loads and outdoor temperature (stand-in for a DSO export)."""
import math

import numpy as np


def make_feeders(n_feeders, hours, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(hours, dtype=np.float64)
    day = 2 * math.pi * (t % 24) / 24
    week = 2 * math.pi * (t % 168) / 168
    season = 2 * math.pi * t / (24 * 365)
    loads, temps = [], []
    for _ in range(n_feeders):
        base = rng.uniform(0.6, 2.5)
        temp = 9.0 - 8.0 * np.cos(season + rng.uniform(-0.3, 0.3)) - 4.0 * np.cos(day - 0.6)
        temp = temp + np.cumsum(rng.normal(0.0, 0.25, hours)) * 0.15 + rng.normal(0.0, 0.6, hours)
        heating = np.clip(16.0 - temp, 0.0, None) * rng.uniform(0.02, 0.06)
        profile = 1.0 + 0.35 * np.sin(day - 1.2) + 0.18 * np.sin(2 * day + 0.4) - 0.08 * np.cos(week)
        load = base * profile + heating + rng.gamma(2.0, 0.04, hours)
        # metering resolution: kWh with three decimals
        loads.append(np.round(load, 3).astype(np.float32))
        temps.append(np.round(temp, 1).astype(np.float32))
    return np.stack(loads), np.stack(temps)
