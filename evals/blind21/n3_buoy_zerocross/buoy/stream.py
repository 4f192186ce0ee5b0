import math

import numpy as np
import torch
from torch.utils.data import IterableDataset

from .waves import wave_statistics, zero_upcrossing_waves

STAT_KEYS = ("h13", "hmax", "hmean", "tz", "t13", "n_waves")


class HeaveWindowStream(IterableDataset):
    """Random bursts from the fleet's records, each summarised by a zero up-crossing analysis."""

    def __init__(self, fleet, length, block, windows_per_epoch, seed):
        self.fleet = fleet
        self.length = length
        self.block = block
        self.windows_per_epoch = windows_per_epoch
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return self.windows_per_epoch

    def featurize(self, burst, dt):
        eta = burst - burst.mean()
        stats = wave_statistics(zero_upcrossing_waves(eta, dt))
        scalars = [stats[k] for k in STAT_KEYS]
        scalars[-1] = scalars[-1] / 100.0
        blocks = np.abs(eta).reshape(-1, self.block).mean(axis=1)
        return torch.cat([torch.tensor(scalars, dtype=torch.float32),
                          torch.from_numpy(blocks).float()])

    def __iter__(self):
        rng = np.random.default_rng((self.seed, self.epoch))
        for _ in range(self.windows_per_epoch):
            rec = self.fleet[int(rng.integers(len(self.fleet)))]
            start = int(rng.integers(0, len(rec.heave) - self.length))
            burst = rec.heave[start:start + self.length]
            target = math.log(float(rec.hs[start + self.length // 2]))
            yield self.featurize(burst, 1.0 / rec.sample_rate_hz), torch.tensor(target, dtype=torch.float32)
