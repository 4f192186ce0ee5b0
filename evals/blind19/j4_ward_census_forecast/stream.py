"""Streaming forecast windows over the simulated sites."""
import math

import numpy as np
import torch
from torch.utils.data import IterableDataset

from adt import simulate_site
from census import hourly_census


class CensusWindowStream(IterableDataset):
    def __init__(self, cfg):
        h, w, r = cfg["hospital"], cfg["window"], cfg["run"]
        self.wards = [x.strip() for x in h["wards"].split(",")]
        self.capacity = np.array([float(x) for x in h["capacity"].split(",")], dtype=np.float32)
        self.days = h.getint("days")
        self.seed = r.getint("seed")
        self.samples_per_epoch = r.getint("samples_per_epoch")
        self.history = w.getint("history_hours")
        self.horizon = w.getint("horizon_hours")
        self.burn_in = w.getint("burn_in_hours")
        self.logs = [simulate_site(s, self.days, h.getfloat("admits_per_day"), self.seed)
                     for s in range(h.getint("sites"))]
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def _calendar(self, hours):
        hod = np.array([(h % 24) / 24.0 for h in hours])
        dow = np.array([((h // 24) % 7) / 7.0 for h in hours])
        return np.stack([np.sin(2 * math.pi * hod), np.cos(2 * math.pi * hod),
                         np.sin(2 * math.pi * dow), np.cos(2 * math.pi * dow)], axis=1).astype(np.float32)

    def make_window(self, site, anchor):
        events = self.logs[site]
        past = hourly_census(events, anchor - self.history, anchor, self.wards)
        future = hourly_census(events, anchor, anchor + self.horizon, self.wards)
        x = np.asarray(past, dtype=np.float32) / self.capacity
        y = np.asarray(future, dtype=np.float32) / self.capacity
        cal = self._calendar(range(anchor - self.history, anchor))
        return {
            "history": torch.from_numpy(np.concatenate([x, cal], axis=1)),
            "target": torch.from_numpy(y),
            "site": site,
            "anchor": anchor,
        }

    def __iter__(self):
        rng = np.random.default_rng([self.seed, self.epoch])
        last = self.days * 24 - self.horizon
        for _ in range(self.samples_per_epoch):
            site = int(rng.integers(0, len(self.logs)))
            anchor = int(rng.integers(self.burn_in + self.history, last))
            yield self.make_window(site, anchor)
