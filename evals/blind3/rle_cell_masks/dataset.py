import numpy as np
import torch
from torch.utils.data import Dataset

import rle

CLASSES = ("background", "round_cell", "elongated_cell")


def synth_cells(cfg):
    """Images with elliptical cells; annotations in COCO format with compressed RLE masks."""
    rng = np.random.default_rng(cfg.getint("seed"))
    h, w = cfg.getint("height"), cfg.getint("width")
    yy, xx = np.mgrid[0:h, 0:w]
    images, annotations = [], []
    for image_id in range(cfg.getint("num_images")):
        img = rng.normal(0.15, 0.05, (3, h, w))
        anns = []
        for _ in range(rng.integers(cfg.getint("min_cells"), cfg.getint("max_cells") + 1)):
            cat = int(rng.integers(1, 3))
            cy, cx = rng.uniform(6, h - 6), rng.uniform(6, w - 6)
            a = rng.uniform(3, 7)
            b = a * (rng.uniform(0.8, 1.0) if cat == 1 else rng.uniform(0.35, 0.6))
            ang = rng.uniform(0, np.pi)
            u = (xx - cx) * np.cos(ang) + (yy - cy) * np.sin(ang)
            v = -(xx - cx) * np.sin(ang) + (yy - cy) * np.cos(ang)
            m = ((u / a) ** 2 + (v / b) ** 2) <= 1.0
            img[:, m] += rng.uniform(0.3, 0.7, (3, 1))
            anns.append({"image_id": image_id, "category_id": cat,
                         "segmentation": {"size": [h, w],
                                          "counts": rle.counts_to_string(rle.encode_counts(m.astype(np.uint8)))}})
        images.append((img.clip(0, 1) * 255).astype(np.uint8))
        annotations.append(anns)
    return np.stack(images), annotations


class CellSegmentation(Dataset):
    def __init__(self, images, annotations, hflip_prob, seed):
        self.images = images
        self.annotations = annotations
        self.hflip_prob = hflip_prob
        self.gen = torch.Generator().manual_seed(seed)

    def __len__(self):
        return len(self.images)

    def load_target(self, idx):
        h, w = self.images.shape[2:]
        target = np.zeros((h, w), dtype=np.int64)
        for ann in self.annotations[idx]:  # later instances overwrite earlier ones
            m = np.array(rle.decode(ann["segmentation"]), dtype=bool).reshape(h, w)
            target[m] = ann["category_id"]
        return target

    def __getitem__(self, idx):
        image = torch.from_numpy(self.images[idx]).float().div_(255.0)
        target = torch.from_numpy(self.load_target(idx))
        if torch.rand(1, generator=self.gen).item() < self.hflip_prob:
            image = image.flip(-1)
            target = target.flip(-1)
        return image, target
