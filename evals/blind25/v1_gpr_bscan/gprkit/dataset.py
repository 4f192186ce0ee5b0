import numpy as np
import torch
from torch.utils.data import Dataset

from . import processing
from .synth import simulate_bscan


class BScanDataset(Dataset):
    """Synthetic B-scans, re-simulated (fresh noise) and processed on every access."""

    def __init__(self, cfg, seed):
        sv, dc, pc = cfg["survey"], cfg["data"], cfg["processing"]
        self.sv, self.pc = sv, pc
        self.noise_std = dc["noise_std"]
        self.seed = seed
        self.epoch = 0
        rng = np.random.default_rng(seed)
        self.labels = (rng.random(dc["n_train"]) < dc["object_fraction"]).astype(np.int64)

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        label = int(self.labels[idx])
        rng = np.random.default_rng([self.seed, self.epoch, idx])
        sv, pc = self.sv, self.pc
        scan = simulate_bscan(rng, sv["n_traces"], sv["n_samples"], sv["dx_m"], sv["dt_ns"],
                              sv["velocity_m_per_ns"], label == 1, self.noise_std)
        if rng.random() < 0.5:               # survey direction is arbitrary
            scan = scan[:, ::-1].copy()

        scan = processing.dewow(scan, pc["dewow_window"])
        scan = processing.remove_background(scan)
        scan = processing.time_gain(scan, sv["dt_ns"], pc["time_gain_power"])
        scan = processing.kirchhoff_migrate(scan, sv["dx_m"], sv["dt_ns"],
                                            pc["migration_velocity"], pc["migration_half_aperture"])
        scan = processing.normalise(scan)
        image = torch.from_numpy(scan.astype(np.float32)).unsqueeze(0)
        return image, torch.tensor(label)
