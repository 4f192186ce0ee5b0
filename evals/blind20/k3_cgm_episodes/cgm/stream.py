import numpy as np
import torch
from torch.utils.data import IterableDataset

from .simulate import patient_profile, simulate_trace


class CGMWindowStream(IterableDataset):
    """Yields one preprocessed week of readings per draw, cut at random from a patient's recording,
    plus the reading ``horizon_min`` after it."""

    def __init__(self, sensor, preprocessor, windows_per_epoch, seed):
        super().__init__()
        self.interval = sensor["interval_min"]
        self.n = int(sensor["window_days"] * 24 * 60 / self.interval)
        self.ahead = int(sensor["horizon_min"] / self.interval)
        self.preprocess = preprocessor
        self.windows_per_epoch = windows_per_epoch
        self.seed = seed
        self.epoch = 0
        length = int(sensor["recording_days"] * 24 * 60 / self.interval)
        self.recordings = []
        for pid in range(sensor["num_patients"]):
            rng = np.random.default_rng([seed, 20_000 + pid])
            self.recordings.append(simulate_trace(rng, patient_profile(seed, pid), length, self.interval,
                                                  sensor["dropout_rate"]))

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        for i in range(self.windows_per_epoch):
            rng = np.random.default_rng([self.seed, self.epoch, i])
            pid = int(rng.integers(len(self.recordings)))
            recording = self.recordings[pid]
            start = int(rng.integers(0, len(recording) - self.n - self.ahead + 1))
            trace = recording[start:start + self.n + self.ahead]
            last = len(trace) - 1
            while np.isnan(trace[last]):         # sensor down at the horizon: label with the last valid reading
                last -= 1
            future = trace[last]
            raw = trace[: self.n]
            feats = self.preprocess(raw)

            valid = ~np.isnan(feats["glucose"])
            glucose = np.where(valid, feats["glucose"], 0.0)
            x = np.stack([glucose / 100.0, valid.astype(np.float64), feats["roc"] / 2.0,
                          feats["hypo_mask"], feats["hyper_mask"]]).astype(np.float32)
            in_range = valid & (glucose >= 70.0) & (glucose <= 180.0)
            yield {
                "x": torch.from_numpy(x),
                "y": torch.tensor(future / 100.0, dtype=torch.float32),
                "patient": pid,
                "tir": torch.tensor(in_range.sum() / max(int(valid.sum()), 1), dtype=torch.float32),
                "episodes": torch.tensor([feats["n_hypo"], feats["n_hyper"]]),
            }
