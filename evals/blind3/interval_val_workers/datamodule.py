import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class ArrayDataset(Dataset):
    def __init__(self, images, labels):
        self.images = images
        self.labels = labels

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return {"image": self.images[i], "label": self.labels[i]}


class PatternDataModule:
    """In-memory synthetic 'texture' images (oriented gratings + noise), Lightning-DataModule-like API."""

    def __init__(self, data_cfg, loader_cfg, seed):
        self.data_cfg = data_cfg
        self.loader_cfg = loader_cfg
        self.seed = seed

    def setup(self):
        rng = np.random.default_rng(self.seed)
        s, k = self.data_cfg["image_size"], self.data_cfg["n_classes"]
        yy, xx = np.mgrid[0:s, 0:s] / s

        def make(n):
            y = rng.integers(0, k, n)
            theta = y * np.pi / k + rng.normal(0, 0.08, n)
            freq = rng.uniform(2.5, 4.0, n)
            phase = rng.uniform(0, 2 * np.pi, n)
            arg = (np.cos(theta)[:, None, None] * xx + np.sin(theta)[:, None, None] * yy) * freq[:, None, None]
            img = np.sin(2 * np.pi * arg + phase[:, None, None]) + rng.normal(0, 0.8, (n, s, s))
            return torch.tensor(img.reshape(n, -1), dtype=torch.float32), torch.tensor(y)

        self.train_set = ArrayDataset(*make(self.data_cfg["n_train"]))
        self.val_set = ArrayDataset(*make(self.data_cfg["n_val"]))

    def train_dataloader(self, generator):
        return DataLoader(self.train_set, batch_size=self.loader_cfg["train_batch_size"], shuffle=True,
                          drop_last=True, num_workers=self.loader_cfg["train_workers"], generator=generator)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=self.loader_cfg["val_batch_size"], shuffle=False,
                          num_workers=self.loader_cfg["val_workers"])
