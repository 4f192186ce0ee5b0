import numpy as np
import torch
from torch.utils.data import Dataset

from .features import breath_table, segment_breaths, summary
from .synth import CLASSES, synth_record


class BeltWindowDataset(Dataset):
    """Random 48 s windows of belt recordings -> per-breath table + window summary."""

    def __init__(self, cfg, seed):
        s = cfg["signal"]
        self.fs = s["fs"]
        self.win = int(s["window_seconds"] * self.fs)
        self.crops = s["crops_per_record"]
        self.dsp = cfg["dsp"]
        self.seed = seed
        self.epoch = 0
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, len(CLASSES), s["num_records"])
        self.records = [synth_record(np.random.default_rng([seed, i]), int(lab), self.fs, s["record_seconds"])
                        for i, lab in enumerate(self.labels)]

    def __len__(self):
        return len(self.records) * self.crops

    def sample_weights(self):
        counts = np.bincount(self.labels, minlength=len(CLASSES))
        w = 1.0 / counts[self.labels]
        return torch.as_tensor(np.repeat(w, self.crops), dtype=torch.double)

    def __getitem__(self, idx):
        rec = idx // self.crops
        sig = self.records[rec]
        rng = np.random.default_rng([self.seed, self.epoch, idx])
        start = int(rng.integers(0, len(sig) - self.win))
        gain = rng.uniform(0.8, 1.25)
        window = sig[start:start + self.win].astype(np.float64) * gain
        x, breaths = segment_breaths(window, self.fs, self.dsp)
        table, n = breath_table(breaths, self.dsp["max_breaths"])
        mask = np.zeros(self.dsp["max_breaths"], dtype=bool)
        mask[:n] = True
        return {
            "breaths": torch.from_numpy(table),
            "breath_mask": torch.from_numpy(mask),
            "summary": torch.from_numpy(summary(breaths, x, self.win / self.fs)),
            "label": int(self.labels[rec]),
        }
