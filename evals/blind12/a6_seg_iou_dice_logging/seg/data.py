import math

import numpy as np
import torch
from torch.utils.data import Dataset

SHAPES = ("disc", "box", "triangle", "bar", "ring", "cross")
FINISHES = ("red", "green", "blue")  # each shape comes in three colour families: 18 object classes
CLASS_NAMES = ("background",) + tuple(f"{f}_{s}" for s in SHAPES for f in FINISHES)


def _render(size, rng, ignore_index):
    img = np.empty((3, size, size), dtype=np.float32)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    base = rng.uniform(0.2, 0.8, 3).astype(np.float32)
    texture = 0.08 * np.sin(xx * rng.uniform(0.2, 0.6) + yy * rng.uniform(0.2, 0.6)).astype(np.float32)
    img[:] = base[:, None, None] + texture[None]
    mask = np.zeros((size, size), dtype=np.uint8)
    for _ in range(int(rng.integers(1, 5))):
        cls = int(rng.integers(1, len(CLASS_NAMES)))
        shape, finish = divmod(cls - 1, len(FINISHES))
        shape += 1
        cy, cx = rng.uniform(8, size - 8, 2)
        r = rng.uniform(5, 14)
        if shape == 1:
            inside = (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r
        elif shape == 2:
            inside = (np.abs(yy - cy) <= r * 0.8) & (np.abs(xx - cx) <= r * 0.8)
        elif shape == 3:
            inside = (yy - cy >= -r) & (yy - cy <= r) & (np.abs(xx - cx) <= (yy - cy + r) * 0.5)
        elif shape == 5:
            rr = (yy - cy) ** 2 + (xx - cx) ** 2
            inside = (rr <= r * r) & (rr >= (0.55 * r) ** 2)
        elif shape == 6:
            inside = ((np.abs(yy - cy) <= r) & (np.abs(xx - cx) <= 2.0)) | \
                     ((np.abs(xx - cx) <= r) & (np.abs(yy - cy) <= 2.0))
        else:
            ang = rng.uniform(0, math.pi)
            d = (xx - cx) * math.sin(ang) - (yy - cy) * math.cos(ang)
            along = (xx - cx) * math.cos(ang) + (yy - cy) * math.sin(ang)
            inside = (np.abs(d) <= 2.5) & (np.abs(along) <= r * 1.5)
        colour = rng.uniform(0.0, 0.45, 3).astype(np.float32)
        colour[finish] = rng.uniform(0.6, 1.0)
        img[:, inside] = colour[:, None]
        mask[inside] = cls
    img += rng.normal(0, 0.05, img.shape).astype(np.float32)
    # VOC-style: a one-pixel band around every object boundary is not scored
    edge = np.zeros_like(mask, dtype=bool)
    edge[1:, :] |= mask[1:, :] != mask[:-1, :]
    edge[:, 1:] |= mask[:, 1:] != mask[:, :-1]
    mask[edge] = ignore_index
    return img, mask


class ShapesSegmentation(Dataset):
    def __init__(self, num_images, size, ignore_index, seed, generator):
        rng = np.random.default_rng(seed)
        rendered = [_render(size, rng, ignore_index) for _ in range(num_images)]
        self.images = np.stack([r[0] for r in rendered])
        self.masks = np.stack([r[1] for r in rendered])
        self.mean = self.images.mean(axis=(0, 2, 3))
        self.std = self.images.std(axis=(0, 2, 3))
        self.generator = generator

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img = (torch.from_numpy(self.images[idx]) - torch.from_numpy(self.mean)[:, None, None]) \
            / torch.from_numpy(self.std)[:, None, None]
        mask = torch.from_numpy(self.masks[idx].astype(np.int64))
        if float(torch.rand(1, generator=self.generator)) < 0.5:
            img, mask = img.flip(-1), mask.flip(-1)
        k = int(torch.randint(0, 4, (1,), generator=self.generator))
        return [img.rot90(k, (1, 2)).contiguous(), mask.rot90(k, (0, 1)).contiguous()]
