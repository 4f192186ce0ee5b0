"""Map-style dataset of square patches cut around labelled pixels of a scene."""
import numpy as np
import torch
from torch.utils.data import Dataset


class PatchDataset(Dataset):
    def __init__(self, scene, centres, patch_size, transform=None):
        self.dn = scene["dn"]
        self.wavelengths = [float(w) for w in scene["wavelengths"]]
        self.labels = scene["labels"]
        self.centres = centres
        self.half = patch_size // 2
        self.transform = transform

    @staticmethod
    def sample_centres(labels, patch_size, per_class, rng):
        half = patch_size // 2
        h, w = labels.shape
        inner = labels[half:h - half, half:w - half]
        centres = []
        for c in range(int(labels.max()) + 1):
            rr, cc = np.nonzero(inner == c)
            if len(rr) == 0:
                continue
            pick = rng.choice(len(rr), size=min(per_class, len(rr)), replace=False)
            centres.extend((int(rr[p]) + half, int(cc[p]) + half) for p in sorted(pick))
        return centres

    def __len__(self):
        return len(self.centres)

    def __getitem__(self, idx):
        r, c = self.centres[idx]
        h = self.half
        sample = {"patch": self.dn[r - h:r + h + 1, c - h:c + h + 1],
                  "wavelengths": self.wavelengths}
        if self.transform is not None:
            sample = self.transform(sample)
        return sample["patch"], torch.tensor(int(self.labels[r, c]))
