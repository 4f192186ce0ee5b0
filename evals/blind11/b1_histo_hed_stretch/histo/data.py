import torch
from torch.utils.data import Dataset

from .synth import make_tiles


class TileDataset(Dataset):
    """Map-style dataset of (stain tensor, label) pairs."""

    def __init__(self, seed, num_tiles, tile_size, stain_jitter=0.08, transform=None):
        self.tiles, self.labels = make_tiles(seed, num_tiles, tile_size, stain_jitter)
        self.transform = transform

    def __len__(self):
        return len(self.tiles)

    def __getitem__(self, idx):
        img = self.tiles[idx]
        if self.transform is not None:
            img = self.transform(img)
        return img, torch.tensor(self.labels[idx], dtype=torch.long)
