"""Synthetic detection set: small bright squares (class 0) and tall dim bars (class 1)."""
import numpy as np
import torch
from torch.utils.data import Dataset


class ShapesDetection(Dataset):
    def __init__(self, num_images, image_size, max_objects, hflip, seed):
        rng = np.random.default_rng(seed)
        self.image_size = image_size
        self.hflip = hflip
        self.seed = seed
        self.epoch = 0
        self.images, self.targets = [], []
        for _ in range(num_images):
            img = rng.normal(0.1, 0.05, (3, image_size, image_size)).astype(np.float32)
            boxes, labels = [], []
            for _ in range(int(rng.integers(1, max_objects + 1))):
                cls = int(rng.integers(2))
                w, h = (int(rng.integers(3, 8)),) * 2 if cls == 0 else (int(rng.integers(3, 7)), int(rng.integers(8, 15)))
                x1, y1 = int(rng.integers(0, image_size - w)), int(rng.integers(0, image_size - h))
                colour = [0.9, 0.8, 0.3] if cls == 0 else [0.3, 0.5, 0.9]
                for c in range(3):
                    img[c, y1:y1 + h, x1:x1 + w] = colour[c] + rng.normal(0, 0.05)
                boxes.append([x1, y1, x1 + w, y1 + h])
                labels.append(cls)
            self.images.append(torch.from_numpy(img))
            self.targets.append({"boxes": torch.tensor(boxes, dtype=torch.float32),
                                 "labels": torch.tensor(labels, dtype=torch.int64)})

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img, target = self.images[idx], self.targets[idx]
        rng = np.random.default_rng((self.seed, self.epoch, idx))
        if rng.random() < self.hflip:
            img = img.flip(-1)
            boxes = target["boxes"].clone()
            boxes[:, [0, 2]] = self.image_size - target["boxes"][:, [2, 0]]
            target = {"boxes": boxes, "labels": target["labels"]}
        return img, target
