import numpy as np
from torch.utils.data import Dataset

from .synth import render_scene


class UnderwaterScenes(Dataset):
    """Underwater photographs rendered on the fly (stand-in for a folder of JPEGs)."""

    def __init__(self, num_images, image_size, seed=0, transform=None):
        self.num_images = num_images
        self.image_size = image_size
        self.seed = seed
        self.transform = transform

    def __len__(self):
        return self.num_images

    def __getitem__(self, idx):
        photo, label = render_scene(self.seed, idx, self.image_size)
        img = photo.astype(np.float64) / 255.0
        if self.transform is not None:
            img = self.transform(img)
        return img, label
