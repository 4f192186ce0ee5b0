"""Tiny-image classification data held as one uint8 array, like a decoded CIFAR shard."""
import numpy as np
import torch
from torch.utils.data import Dataset


def make_images(n, size, n_classes, seed):
    """Each class has its own mean colour; pixels are that colour plus noise."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_classes, n)
    base = rng.integers(0, 136, (n_classes, 3, 1, 1), dtype=np.uint8)
    # base + noise stays below 256, so uint8 arithmetic never wraps.
    images = rng.integers(0, 120, (n, 3, size, size), dtype=np.uint8) + base[labels]
    return images, labels


class ImageArray(Dataset):
    def __init__(self, images, labels, mean, std):
        self.images, self.labels = images, labels
        self.mean = torch.tensor(mean).view(3, 1, 1)
        self.std = torch.tensor(std).view(3, 1, 1)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        pixels = self.images[i].tolist()
        image = torch.tensor(pixels, dtype=torch.float32) / 255.0
        return {"image": (image - self.mean) / self.std, "label": torch.tensor(self.labels[i].tolist())}
