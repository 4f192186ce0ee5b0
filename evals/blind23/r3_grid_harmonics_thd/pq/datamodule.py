import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from .features import HarmonicFeatures
from .waveforms import CLASSES, synthesize


class GridWaveformDataset(Dataset):
    """Voltage recordings synthesised per item (record seed + epoch-dependent measurement noise)."""

    def __init__(self, cfg, features):
        self.cfg = cfg
        self.features = features
        self.seed = cfg.getint("seed")
        self.fs = cfg.getint("sample_rate")
        self.f0 = cfg.getint("mains_hz")
        self.length = features.window * cfg.getint("windows_per_record")
        self.noise_std = cfg.getfloat("noise_std")
        label_rng = np.random.default_rng([self.seed, 0])
        self.labels = label_rng.integers(len(CLASSES), size=cfg.getint("num_records"))
        self.epoch = 0

    def __len__(self):
        return len(self.labels)

    def waveform(self, idx):
        rng = np.random.default_rng([self.seed, 1, idx])
        x = synthesize(int(self.labels[idx]), self.length, self.fs, self.f0, rng)
        meas = np.random.default_rng([self.seed, 2, self.epoch, idx])
        return x * meas.uniform(0.97, 1.03) + meas.normal(0.0, self.noise_std, x.shape)

    def __getitem__(self, idx):
        feats = self.features(self.waveform(idx))
        return torch.from_numpy(feats), int(self.labels[idx])


class GridDataModule:
    def __init__(self, data_cfg, feat_cfg, trainer_cfg):
        sr, f0 = data_cfg.getint("sample_rate"), data_cfg.getint("mains_hz")
        cycles = data_cfg.getint("cycles_per_window")
        self.features = HarmonicFeatures(sr // f0 * cycles, cycles, feat_cfg.getint("max_harmonic"))
        self.data_cfg = data_cfg
        self.batch_size = trainer_cfg.getint("batch_size")
        self.seed = data_cfg.getint("seed")

    def setup(self):
        self.train_set = GridWaveformDataset(self.data_cfg, self.features)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True, drop_last=True,
                          generator=torch.Generator().manual_seed(self.seed))
