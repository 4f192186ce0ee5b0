"""Synthetic rides and a streaming dataset of ride windows."""
import random
from dataclasses import dataclass

import numpy as np
import torch
from torch.utils.data import IterableDataset

import powermetrics as pm


@dataclass
class Ride:
    ride_id: int
    ftp: int
    watts: np.ndarray  # int64, 1 Hz


def synth_ride(seed, ride_id, cfg):
    rng = np.random.default_rng((seed, ride_id))
    ftp = int(rng.integers(*cfg["ftp_range"]))
    seconds = int(rng.integers(cfg["min_minutes"], cfg["max_minutes"] + 1)) * 60
    # piecewise efforts: warm-up, endurance blocks, intervals, coasting
    n_blocks = seconds // 120
    levels = rng.choice([0.0, 0.45, 0.65, 0.8, 0.95, 1.1, 1.3],
                        p=[0.08, 0.12, 0.35, 0.2, 0.12, 0.09, 0.04], size=n_blocks)
    lengths = rng.integers(20, 220, size=n_blocks)
    target = np.repeat(levels, lengths)[:seconds]
    if len(target) < seconds:
        target = np.concatenate([target, np.full(seconds - len(target), 0.6)])
    noise = rng.normal(0.0, 0.12, size=seconds)
    sprint = rng.random(seconds) < 0.002
    watts = ftp * (target * (1.0 + noise)) + sprint * rng.integers(300, 900, size=seconds)
    watts = np.where(target == 0.0, 0.0, watts)  # coasting: zero torque
    return Ride(ride_id, ftp, np.clip(np.rint(watts), 0, 2000).astype(np.int64))


class RideWindows(IterableDataset):
    """Yields fixed-length windows of each ride with their power metrics, through a shuffle buffer."""

    def __init__(self, cfg, seed):
        self.rcfg = cfg["rides"]
        self.wcfg = cfg["windows"]
        self.seed = seed
        self.buffer_size = cfg["loader"]["shuffle_buffer"]

    def featurize(self, ride, start):
        w = self.wcfg
        watts = ride.watts[start:start + w["length_s"]]
        rolling = pm.rolling_average(watts, w["rolling_s"])
        np_watts = pm.normalized_power(rolling)
        zones = pm.time_in_zones(watts, ride.ftp, w["zone_bounds"])
        ds = w["downsample_s"]
        trace = rolling[: len(rolling) // ds * ds].reshape(-1, ds)[:, -1] / ride.ftp
        intensity = np_watts / ride.ftp
        vi = pm.variability_index(np_watts, watts)
        # session RPE (Borg CR-10) reported by the rider: driven by intensity and variability
        rng = np.random.default_rng((self.seed, ride.ride_id, start))
        rpe = float(np.clip(10.0 * intensity ** 2 + 1.5 * (vi - 1.0) + rng.normal(0.0, 0.4), 0.0, 10.0))
        return {
            "trace": torch.tensor(trace, dtype=torch.float32)[None],
            "scalars": torch.tensor([intensity, vi, np_watts / 400.0] + zones, dtype=torch.float32),
            "rpe": torch.tensor(rpe / 10.0, dtype=torch.float32),
            "ride_id": ride.ride_id,
        }

    def windows(self):
        for ride_id in range(self.rcfg["count"]):
            ride = synth_ride(self.seed, ride_id, self.rcfg)
            last = len(ride.watts) - self.wcfg["length_s"]
            for start in range(0, last + 1, self.wcfg["stride_s"]):
                yield self.featurize(ride, start)

    def __iter__(self):
        rnd = random.Random(self.seed)
        buf = []
        for item in self.windows():
            if len(buf) < self.buffer_size:
                buf.append(item)
                continue
            j = rnd.randrange(self.buffer_size)
            yield buf[j]
            buf[j] = item
        rnd.shuffle(buf)
        yield from buf
