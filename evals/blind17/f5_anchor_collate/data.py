"""Synthetic detection scenes and the anchor-matching collator."""
import numpy as np
import torch
from torch.utils.data import Dataset

from anchors import BoxCoder, Matcher

CLASSES = ("background", "vehicle", "pedestrian", "sign")
_COLOURS = {1: (200, 40, 40), 2: (40, 200, 60), 3: (230, 220, 40)}


class SyntheticScenes(Dataset):
    """Scenes of 1-10 coloured objects on a textured background; boxes in pixels (x1, y1, x2, y2)."""

    def __init__(self, n_images, image_size, seed):
        rng = np.random.default_rng(seed)
        self.size = image_size
        self.images, self.targets = [], []
        for _ in range(n_images):
            img = (rng.normal(90, 25, (image_size, image_size, 3))).clip(0, 255).astype(np.uint8)
            boxes, labels = [], []
            for _ in range(int(rng.integers(1, 11))):
                cls = int(rng.integers(1, len(CLASSES)))
                w = float(rng.uniform(8, 40)) * (1.6 if cls == 1 else 0.7 if cls == 2 else 1.0)
                h = float(rng.uniform(8, 40)) * (0.7 if cls == 1 else 1.8 if cls == 2 else 1.0)
                w, h = min(w, image_size - 2), min(h, image_size - 2)
                x1 = float(rng.uniform(0, image_size - w))
                y1 = float(rng.uniform(0, image_size - h))
                box = [round(x1, 1), round(y1, 1), round(x1 + w, 1), round(y1 + h, 1)]
                boxes.append(box)
                labels.append(cls)
                img[int(box[1]):int(box[3]), int(box[0]):int(box[2])] = _COLOURS[cls]
            self.images.append(img)
            self.targets.append({"boxes": boxes, "labels": labels})

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img = torch.from_numpy(self.images[idx]).permute(2, 0, 1).float().div_(255.0)
        boxes = [list(b) for b in self.targets[idx]["boxes"]]
        if torch.rand(1).item() < 0.5:  # horizontal flip
            img = img.flip(-1)
            boxes = [[self.size - b[2], b[1], self.size - b[0], b[3]] for b in boxes]
        return img, {"boxes": boxes, "labels": list(self.targets[idx]["labels"])}


class AnchorMatchingCollator:
    """Stack images and turn each image's boxes into per-anchor targets:
    class ids (0 background, -1 ignored), encoded box deltas and a positive mask."""

    def __init__(self, anchors, high=0.5, low=0.4):
        self.anchors = anchors
        self.matcher = Matcher(high, low, allow_low_quality_matches=True)
        self.coder = BoxCoder()

    def __call__(self, batch):
        images = torch.stack([img for img, _ in batch])
        n_anchors = len(self.anchors)
        cls_targets, box_targets, positive = [], [], []
        for _, target in batch:
            matches = self.matcher(self.anchors, target["boxes"])
            cls_row, box_rows, pos_row = [], [], []
            for anchor, m in zip(self.anchors, matches):
                if m >= 0:
                    cls_row.append(target["labels"][m])
                    box_rows.append(self.coder.encode(target["boxes"][m], anchor))
                    pos_row.append(True)
                else:
                    cls_row.append(0 if m == Matcher.BELOW_LOW else -1)
                    box_rows.append((0.0, 0.0, 0.0, 0.0))
                    pos_row.append(False)
            cls_targets.append(cls_row)
            box_targets.append(box_rows)
            positive.append(pos_row)
        return [images,
                torch.tensor(cls_targets, dtype=torch.int64).view(len(batch), n_anchors),
                torch.tensor(box_targets, dtype=torch.float32).view(len(batch), n_anchors, 4),
                torch.tensor(positive, dtype=torch.bool).view(len(batch), n_anchors)]
