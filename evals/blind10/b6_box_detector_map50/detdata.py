"""Synthetic 'shapes' detection set: squares, bars and rings on noisy backgrounds, boxes in x1y1x2y2 pixels."""
import numpy as np
import torch
from torch.utils.data import Dataset

CLASSES = ("square", "bar", "ring")


def draw_sample(rng, size):
    img = rng.normal(0.2, 0.08, (size, size))
    boxes, labels = [], []
    for _ in range(int(rng.integers(1, 5))):
        cls = int(rng.integers(0, 3))
        if cls == 0:
            w = h = int(rng.integers(8, 20))
        elif cls == 1:
            w, h = int(rng.integers(4, 8)), int(rng.integers(14, 30))
        else:
            w = h = int(rng.integers(10, 22))
        x1, y1 = int(rng.integers(0, size - w)), int(rng.integers(0, size - h))
        patch = img[y1:y1 + h, x1:x1 + w]
        if cls == 2:
            yy, xx = np.mgrid[0:h, 0:w]
            r = np.hypot(yy - (h - 1) / 2, xx - (w - 1) / 2)
            patch[(r > w / 2 - 3) & (r <= w / 2)] = 0.9
        else:
            patch[:] = 0.8 if cls == 0 else 0.6
        boxes.append([x1, y1, x1 + w, y1 + h])
        labels.append(cls)
    return np.clip(img, 0, 1).astype(np.float32), np.array(boxes, np.float32), np.array(labels, np.int64)


class ShapesDetection(Dataset):
    def __init__(self, n_images, size, seed, hflip_p=0.5):
        rng = np.random.default_rng(seed)
        self.samples = [draw_sample(rng, size) for _ in range(n_images)]
        self.size = size
        self.hflip_p = hflip_p
        self.rng = np.random.default_rng(seed + 1)

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        img, boxes, labels = self.samples[idx]
        if self.rng.random() < self.hflip_p:
            img = img[:, ::-1]
            boxes = np.stack([self.size - boxes[:, 2], boxes[:, 1], self.size - boxes[:, 0], boxes[:, 3]], axis=1)
        target = {"boxes": torch.from_numpy(np.ascontiguousarray(boxes)), "labels": torch.from_numpy(labels)}
        return torch.from_numpy(np.ascontiguousarray(img))[None], target


class DetectionCollate:
    """torchvision-detection style: images stacked, targets kept as a list of dicts."""

    def __call__(self, samples):
        images = torch.stack([s[0] for s in samples])
        targets = [s[1] for s in samples]
        return [images, targets]
