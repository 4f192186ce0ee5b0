"""Boundary F-measure (Csurka et al. 2013 / DAVIS-style) with a pixel tolerance."""
import math



def boundary_pixels(label, cls):
    """Pixels of class `cls` with a 4-neighbour (inside the image) of another class."""
    h = len(label)
    w = len(label[0])
    out = []
    for y in range(h):
        row = label[y]
        for x in range(w):
            if row[x] != cls:
                continue
            if (y > 0 and label[y - 1][x] != cls) or (y < h - 1 and label[y + 1][x] != cls) \
                    or (x > 0 and row[x - 1] != cls) or (x < w - 1 and row[x + 1] != cls):
                out.append((y, x))
    return out


def _matched(points, other, tol):
    """How many of `points` lie within `tol` pixels (Euclidean) of a point of `other`."""
    hits = 0
    for y, x in points:
        d = min(math.hypot(y - oy, x - ox) for oy, ox in other)
        if d <= tol:
            hits += 1
    return hits


def boundary_f1(pred, gt, cls, tol):
    """Boundary F for one image and class; pred / gt are nested lists of labels."""
    bp = boundary_pixels(pred, cls)
    bg = boundary_pixels(gt, cls)
    if not bp and not bg:
        return 1.0
    if not bp or not bg:
        return 0.0
    precision = _matched(bp, bg, tol) / len(bp)
    recall = _matched(bg, bp, tol) / len(bg)
    if precision + recall == 0.0:
        return 0.0
    return 2.0 * precision * recall / (precision + recall)


def batch_boundary_f1(pred, gt, num_classes, tol):
    """Mean boundary F per class over a batch of label maps (torch tensors [B, H, W])."""
    pred_l = pred.tolist()
    gt_l = gt.tolist()
    per_class = []
    for c in range(num_classes):
        scores = [boundary_f1(p, g, c, tol) for p, g in zip(pred_l, gt_l)]
        per_class.append(sum(scores) / len(scores))
    return per_class
