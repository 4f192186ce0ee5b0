import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from . import lit
from .periodogram import frequency_grid, lomb_scargle, phase_fold
from .simulate import CLASSES, simulate_star


class LightCurveDataset(Dataset):
    """Stored light curves; each access drops a random subset of epochs, re-perturbs the
    magnitudes within their errors and recomputes the periodogram features."""

    def __init__(self, curves, labels, freqs, n_phase_bins, drop_fraction, seed):
        self.curves = curves
        self.labels = labels
        self.freqs = freqs
        self.n_phase_bins = n_phase_bins
        self.drop_fraction = drop_fraction
        self.seed = seed
        self.epoch = 0

    def __len__(self):
        return len(self.curves)

    def __getitem__(self, index):
        t, mag, err = self.curves[index]
        rng = np.random.default_rng((self.seed, self.epoch, index))
        keep = rng.random(len(t)) >= self.drop_fraction
        t, mag, err = t[keep], mag[keep], err[keep]
        mag = mag + err * rng.standard_normal(len(mag))

        power = lomb_scargle(t, mag, err, self.freqs)
        best = self.freqs[int(np.argmax(power))]
        folded = phase_fold(t, mag, best, self.n_phase_bins)
        p5, p95 = np.percentile(mag, [5, 95])
        summary = np.array([p95 - p5, np.std(mag), np.log10(best), power.max(), len(t) / 100.0])
        x = np.concatenate([power, folded, summary]).astype(np.float32)
        return torch.from_numpy(x), self.labels[index]


class LightCurveDataModule(lit.LightningDataModule):
    def __init__(self, seed, survey, features, batch_size):
        super().__init__()
        self.seed = seed
        self.survey = survey
        self.features = features
        self.batch_size = batch_size

    @property
    def n_features(self):
        return self.features["n_freq"] + self.features["n_phase_bins"] + 5

    def setup(self, stage=None):
        rng = np.random.default_rng(self.seed)
        labels = rng.integers(0, len(CLASSES), size=self.survey["n_stars"])
        curves = [simulate_star(rng, CLASSES[k], self.survey["baseline_days"],
                                self.survey["min_obs"], self.survey["max_obs"]) for k in labels]
        freqs = frequency_grid(self.features["f_min"], self.features["f_max"], self.features["n_freq"])
        self.train_set = LightCurveDataset(curves, [int(k) for k in labels], freqs,
                                           self.features["n_phase_bins"],
                                           self.features["drop_fraction"], self.seed)

    def train_dataloader(self):
        g = torch.Generator()
        g.manual_seed(self.seed)
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True,
                          drop_last=True, num_workers=0, generator=g)

    def on_epoch_start(self, epoch):
        self.train_set.epoch = epoch
