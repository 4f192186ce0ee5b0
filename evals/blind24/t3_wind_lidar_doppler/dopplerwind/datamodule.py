"""LightningDataModule-style wrapper around the simulated scans."""
import torch
from torch.utils.data import DataLoader, Dataset

from .processing import SpectralMoments
from .simulate import simulate_scans


class DBSScanDataset(Dataset):
    def __init__(self, scans, targets, processor):
        self.scans = scans
        self.targets = targets
        self.processor = processor

    def __len__(self):
        return len(self.scans)

    def __getitem__(self, idx):
        feats = self.processor(self.scans[idx])
        return feats, torch.from_numpy(self.targets[idx])


class LidarDataModule:
    def __init__(self, cfg, seed):
        self.cfg = cfg
        self.seed = seed
        self.train_set = None

    def setup(self, stage="fit"):
        scans, targets, vel_axis = simulate_scans(self.cfg, self.seed)
        p = self.cfg["processing"]
        processor = SpectralMoments(vel_axis, hs_min_points=p["hs_min_points"],
                                    spectral_averages=p["spectral_averages"],
                                    snr_threshold_db=p["snr_threshold_db"])
        self.train_set = DBSScanDataset(scans, targets, processor)

    def train_dataloader(self):
        d = self.cfg["data"]
        g = torch.Generator().manual_seed(self.seed)
        return DataLoader(self.train_set, batch_size=d["batch_size"], shuffle=d["shuffle"],
                          num_workers=d["num_workers"], generator=g, drop_last=True)
