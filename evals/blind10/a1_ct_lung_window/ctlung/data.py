import numpy as np
import torch
from torch.utils.data import Dataset

from . import transforms as T
from .dicomlite import pack_slice
from .phantom import make_slice


def build_transforms(cfg):
    return T.Compose([
        T.DecodeSlice(),
        T.ToHounsfield(),
        T.LungMask(low=cfg["lung_hu"][0], high=cfg["lung_hu"][1], seed_rows=tuple(cfg["seed_rows"])),
        T.RandomWindow(center_jitter=cfg["window_jitter"]["center"], width_jitter=cfg["window_jitter"]["width"]),
        T.RandomHorizontalFlip(p=cfg["hflip"]),
        T.ToTensor(),
    ])


class CTSliceDataset(Dataset):
    """Slices as they come from a PACS export: one DCML blob each, plus a nodule label."""

    def __init__(self, n_slices, size, seed, transform=None):
        rng = np.random.default_rng(seed)
        self.blobs, self.labels = [], []
        for i in range(n_slices):
            hu, label = make_slice(rng, size)
            slope = float(rng.choice([1.0, 0.5]))
            intercept = float(rng.choice([-1024.0, -1000.0]))
            self.blobs.append(pack_slice(hu, slope, intercept, window_center=-600.0, window_width=1500.0,
                                         spacing=float(rng.uniform(0.6, 0.9)), series_uid=seed * 1000 + i // 40,
                                         instance=i % 40))
            self.labels.append(label)
        self.transform = transform

    def __len__(self):
        return len(self.blobs)

    def __getitem__(self, idx):
        sample = {"blob": self.blobs[idx]}
        if self.transform is not None:
            sample = self.transform(sample)
        sample["label"] = torch.tensor(self.labels[idx], dtype=torch.long)
        return sample
