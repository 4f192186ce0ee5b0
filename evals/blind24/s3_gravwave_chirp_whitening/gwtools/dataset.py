import numpy as np
import torch

from .simulate import make_segments
from .whiten import bandpass_mask, tukey, welch_psd, whiten


class StrainDataset:
    """Strain segments; each item is whitened with its own Welch PSD, band-passed and cropped."""

    def __init__(self, cfg, seed):
        self.fs = cfg["sample_rate"]
        self.strain, self.labels = make_segments(cfg["n_segments"], cfg["segment_len"], self.fs, seed,
                                                 tuple(cfg["snr_range"]))
        self.nperseg, self.overlap = cfg["welch_nperseg"], cfg["welch_overlap"]
        self.crop = cfg["edge_crop"]
        n = cfg["segment_len"]
        self.window = tukey(n, cfg["tukey_alpha"])
        self.mask = bandpass_mask(np.fft.rfftfreq(n, 1.0 / self.fs), cfg["f_low"], cfg["f_high"], cfg["taper_hz"])
        self.max_shift = cfg["max_shift"]

    def __len__(self):
        return len(self.labels)

    def get(self, idx, rng):
        x = self.strain[idx]
        shift = int(rng.integers(-self.max_shift, self.max_shift + 1))
        x = np.roll(x, shift)
        if rng.random() < 0.5:
            x = -x
        f, p = welch_psd(x, self.fs, self.nperseg, self.overlap)
        w = whiten(x, self.fs, f, p, self.mask, self.window)
        w = w[self.crop:len(w) - self.crop]
        return torch.from_numpy(w.astype(np.float32)), int(self.labels[idx])


class BatchIterator:
    """Shuffled mini-batches over a dataset, drawn with one numpy Generator."""

    def __init__(self, dataset, batch_size, seed, drop_last=True):
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.dataset) // self.batch_size

    def __iter__(self):
        order = self.rng.permutation(len(self.dataset))
        stop = len(order) - (len(order) % self.batch_size if self.drop_last else 0)
        for b in range(0, stop, self.batch_size):
            items = [self.dataset.get(int(i), self.rng) for i in order[b:b + self.batch_size]]
            x = torch.stack([it[0] for it in items]).unsqueeze(1)
            y = torch.tensor([it[1] for it in items], dtype=torch.long)
            yield x, y
