import torch
from torch.utils.data import Dataset


class TileDataset(Dataset):
    """Holds the DN tiles; every access runs the transform chain on one tile."""

    def __init__(self, tiles, labels, transform=None):
        self.tiles = tiles
        self.labels = labels
        self.transform = transform

    def __len__(self):
        return len(self.tiles)

    def __getitem__(self, idx):
        sample = {"dn": self.tiles[idx], "label": int(self.labels[idx])}
        if self.transform is not None:
            sample = self.transform(sample)
        return sample
