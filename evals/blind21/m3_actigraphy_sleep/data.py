import math

import numpy as np
import torch
from torch.utils.data import IterableDataset

from scoring import activity_counts, cole_kripke, rescore
from signals import simulate_window


class ActigraphyWindows(IterableDataset):
    """Yields one scored window per night segment; window i is simulated from seed (seed, i)."""

    def __init__(self, cfg):
        self.seed = cfg["seed"]
        dev, data = cfg["device"], cfg["data"]
        self.samples_per_epoch = dev["sample_rate_hz"] * dev["epoch_seconds"]
        self.lsb_per_g = dev["lsb_per_g"]
        self.windows = data["windows"]
        self.n_epochs = data["epochs_per_window"]
        self.counts_cfg = cfg["counts"]
        self.scoring = cfg["scoring"]

    def __len__(self):
        return self.windows

    def score(self, raw):
        counts = activity_counts(raw, self.lsb_per_g, self.samples_per_epoch,
                                 self.counts_cfg["dead_band_g"], self.counts_cfg["gain"])
        sc = self.scoring
        index = cole_kripke(counts, sc["weights"], sc["offsets"], sc["scale"])
        sleep = rescore([d < sc["threshold"] for d in index])
        return counts, index, sleep

    def __iter__(self):
        for i in range(self.windows):
            rng = np.random.default_rng([self.seed, i])
            raw, states = simulate_window(rng, self.n_epochs, self.samples_per_epoch, self.lsb_per_g)
            counts, index, sleep = self.score(raw)
            features = torch.tensor([[math.log1p(c) for c in counts],
                                     [math.log1p(d) for d in index],
                                     [float(s) for s in sleep]], dtype=torch.float32)
            yield features, torch.from_numpy(states)
