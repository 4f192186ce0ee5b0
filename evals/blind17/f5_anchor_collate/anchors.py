"""Anchor generation, IoU matching and box encoding (RetinaNet / Faster R-CNN conventions)."""
import math


def generate_anchors(image_size, strides, sizes, ratios):
    """Anchors (x1, y1, x2, y2) level by level, row-major over cells, then size, then ratio."""
    anchors = []
    for stride, base in zip(strides, sizes):
        cells = image_size // stride
        for cy in range(cells):
            for cx in range(cells):
                x, y = (cx + 0.5) * stride, (cy + 0.5) * stride
                for scale in (1.0, 2 ** (1 / 3), 2 ** (2 / 3)):
                    for ratio in ratios:
                        w = base * scale * math.sqrt(1.0 / ratio)
                        h = base * scale * math.sqrt(ratio)
                        anchors.append((x - w / 2, y - h / 2, x + w / 2, y + h / 2))
    return anchors


def box_iou(a, b):
    iw = min(a[2], b[2]) - max(a[0], b[0])
    ih = min(a[3], b[3]) - max(a[1], b[1])
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    area_a = (a[2] - a[0]) * (a[3] - a[1])
    area_b = (b[2] - b[0]) * (b[3] - b[1])
    return inter / (area_a + area_b - inter)


class Matcher:
    """Each anchor takes its best ground truth (the first one on ties): IoU >= high is a match,
    below low is background, in between is ignored. With allow_low_quality_matches, every
    anchor that reaches a ground truth's highest IoU is also a match (to its own best GT)."""

    BELOW_LOW = -1
    BETWEEN = -2

    def __init__(self, high, low, allow_low_quality_matches=True):
        self.high, self.low = high, low
        self.allow_low_quality_matches = allow_low_quality_matches

    def __call__(self, anchors, gt_boxes):
        ious = [[box_iou(a, g) for g in gt_boxes] for a in anchors]
        matches = []
        for row in ious:
            best_j, best = 0, row[0]
            for j in range(1, len(row)):
                if row[j] > best:
                    best_j, best = j, row[j]
            if best >= self.high:
                matches.append(best_j)
            elif best >= self.low:
                matches.append(self.BETWEEN)
            else:
                matches.append(self.BELOW_LOW)
        if self.allow_low_quality_matches:
            for j in range(len(gt_boxes)):
                top = max(row[j] for row in ious)
                if top <= 0.0:
                    continue
                for i, row in enumerate(ious):
                    if row[j] == top:
                        matches[i] = row.index(max(row))
        return matches


class BoxCoder:
    def __init__(self, weights=(10.0, 10.0, 5.0, 5.0)):
        self.weights = weights

    def encode(self, gt, anchor):
        wx, wy, ww, wh = self.weights
        aw, ah = anchor[2] - anchor[0], anchor[3] - anchor[1]
        ax, ay = anchor[0] + 0.5 * aw, anchor[1] + 0.5 * ah
        gw, gh = gt[2] - gt[0], gt[3] - gt[1]
        gx, gy = gt[0] + 0.5 * gw, gt[1] + 0.5 * gh
        return (wx * (gx - ax) / aw, wy * (gy - ay) / ah,
                ww * math.log(gw / aw), wh * math.log(gh / ah))
