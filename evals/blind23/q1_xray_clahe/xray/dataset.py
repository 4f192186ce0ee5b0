import torch
from torch.utils.data import Dataset

from .synth import make_radiograph


class ChestXrayDataset(Dataset):
    """Synthetic stand-in for a DICOM folder: images are generated (as if decoded) on access."""

    def __init__(self, num_images, raw_size, bit_depth, seed, transform=None):
        self.num_images = num_images
        self.raw_size = raw_size
        self.bit_depth = bit_depth
        self.seed = seed
        self.transform = transform

    def __len__(self):
        return self.num_images

    def __getitem__(self, index):
        img, label = make_radiograph(index, self.raw_size, self.bit_depth, self.seed)
        if self.transform is not None:
            img = self.transform(img)
        return img, torch.tensor(label, dtype=torch.long)
