import random

import torch
from torch.utils.data import Dataset


class GlyphDataset(Dataset):
    def __init__(self, images, labels, transform, seed):
        self.images = images
        self.labels = labels
        self.transform = transform
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        img = self.transform(self.images[index], self.rng)
        return img, torch.tensor(int(self.labels[index]))
