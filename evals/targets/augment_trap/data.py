"""Glyph images with scanner-style augmentation (random crop, flip, per-row wobble)."""
import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import Dataset


def make_glyphs(n, size, n_classes, seed):
    """Each class is a blocky 7x7 prototype scaled up to `size`, plus noise."""
    rng = np.random.default_rng(seed)
    protos = rng.random((n_classes, 7, 7)) < 0.4
    protos = np.kron(protos, np.ones((size // 7, size // 7))).astype(np.float32)
    labels = rng.integers(0, n_classes, n)
    images = protos[labels] + 0.3 * rng.standard_normal((n, size, size), dtype=np.float32)
    return images.astype(np.float32), labels


class AugmentedGlyphs(Dataset):
    """Augments with torch's global RNG, so a seeded run sees the same stream each time."""

    def __init__(self, images, labels, pad, max_row_shift):
        self.images, self.labels = images, labels
        self.pad, self.max_row_shift = pad, max_row_shift

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        img = torch.from_numpy(self.images[i])
        size = img.shape[-1]
        padded = F.pad(img, (self.pad,) * 4)
        dy, dx = torch.randint(0, 2 * self.pad + 1, (2,)).tolist()
        img = padded[dy:dy + size, dx:dx + size]
        if torch.rand(()) < 0.5:
            img = img.flip(-1)
        rows = []
        for r in range(size):
            shift = int(torch.randint(-self.max_row_shift, self.max_row_shift + 1, ()).item())
            rows.append(torch.roll(img[r], shift))
        return torch.stack(rows).unsqueeze(0), int(self.labels[i])
