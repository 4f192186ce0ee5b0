"""YOLOv3-style target assignment, done in the DataLoader's collate_fn.

Each ground-truth box goes to the grid cell holding its centre and to the anchor whose
shape matches best; every other prior overlapping a ground truth by more than
ignore_iou is left out of the no-object loss.
"""
import math

import torch


def box_iou(a, b):
    """IoU of two (x1, y1, x2, y2) boxes."""
    iw = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    ih = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def shape_iou(w, h, aw, ah):
    inter = min(w, aw) * min(h, ah)
    return inter / (w * h + aw * ah - inter)


class TargetBuilder:
    def __init__(self, image_size, grid, anchors, ignore_iou):
        self.grid = grid
        self.stride = image_size / grid
        self.anchors = [tuple(float(v) for v in a) for a in anchors]
        self.ignore_iou = ignore_iou

    def priors(self):
        for a, (aw, ah) in enumerate(self.anchors):
            for gy in range(self.grid):
                for gx in range(self.grid):
                    cx, cy = (gx + 0.5) * self.stride, (gy + 0.5) * self.stride
                    yield a, gy, gx, (cx - aw / 2, cy - ah / 2, cx + aw / 2, cy + ah / 2)

    def build(self, target):
        A, S = len(self.anchors), self.grid
        obj = torch.zeros(A, S, S)
        noobj = torch.ones(A, S, S)
        box = torch.zeros(A, S, S, 4)
        cls = torch.full((A, S, S), -1, dtype=torch.long)
        gts = target["boxes"].tolist()
        labels = target["labels"].tolist()

        for a, gy, gx, prior in self.priors():
            best = max(box_iou(prior, gt) for gt in gts)
            if best > self.ignore_iou:
                noobj[a, gy, gx] = 0.0

        for (x1, y1, x2, y2), label in zip(gts, labels):
            w, h = x2 - x1, y2 - y1
            cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
            gx = min(int(cx / self.stride), S - 1)
            gy = min(int(cy / self.stride), S - 1)
            best_a, best_iou = 0, -1.0
            for a, (aw, ah) in enumerate(self.anchors):
                iou = shape_iou(w, h, aw, ah)
                if iou > best_iou:
                    best_a, best_iou = a, iou
            aw, ah = self.anchors[best_a]
            obj[best_a, gy, gx] = 1.0
            noobj[best_a, gy, gx] = 0.0
            box[best_a, gy, gx] = torch.tensor([cx / self.stride - gx, cy / self.stride - gy,
                                                math.log(w / aw), math.log(h / ah)])
            cls[best_a, gy, gx] = label
        return obj, noobj, box, cls


class DetectionCollate:
    def __init__(self, builder):
        self.builder = builder

    def __call__(self, batch):
        images = torch.stack([img for img, _ in batch])
        built = [self.builder.build(t) for _, t in batch]
        obj, noobj, box, cls = (torch.stack(parts) for parts in zip(*built))
        return {
            "images": images,
            "obj": obj, "noobj": noobj, "box": box, "cls": cls,
            "gt_boxes": [t["boxes"] for _, t in batch],
        }
