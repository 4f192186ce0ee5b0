import numpy as np
import torch
from torch.utils.data import Dataset

from .archive import read_weather_csv


class FieldSeasonDataset(Dataset):
    """One item per field-season: weather-derived features around a (jittered) sowing date."""

    def __init__(self, files, meta, featurizer, settings):
        self.s = settings
        self.featurizer = featurizer
        self.ids = sorted(meta)
        self.meta = meta
        self.weather = {fid: read_weather_csv(files[f"{fid}.csv"]) for fid in self.ids}
        self.epoch = 0
        self.targets = [self._yield(fid) for fid in self.ids]

    def _yield(self, fid):
        m = self.meta[fid]
        w = self.weather[fid]
        sow = m["sowing_day"]
        warm = float(np.clip(w["tmax_c"][sow:sow + 120], 0, 30).mean())
        wet = float(w["rain_mm"][sow - 15:sow + 90].mean())
        return 4.0 + 0.12 * warm + 0.6 * m["soil_index"] + 0.3 * np.tanh(wet - 2.0) - 0.05 * abs(m["lat_shift"])

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, idx):
        fid = self.ids[idx]
        rng = np.random.default_rng([self.s.SEED, self.epoch, idx])
        sow = self.meta[fid]["sowing_day"] + int(rng.integers(-self.s.SOWING_JITTER_DAYS, self.s.SOWING_JITTER_DAYS + 1))
        feats = self.featurizer(self.weather[fid], sow)
        x = torch.tensor(feats + [self.meta[fid]["soil_index"]], dtype=torch.float32)
        return x, torch.tensor(self.targets[idx], dtype=torch.float32)
