"""Per-class IoU and Dice from predicted and target label maps (flat lists of class ids)."""
import math


def class_iou(pred, target, cls, ignore_index):
    """Intersection over union of one class on the scored pixels; None when the class is absent from both."""
    inter = union = 0
    for p, t in zip(pred, target):
        if t == ignore_index:
            continue
        hit_p, hit_t = p == cls, t == cls
        if hit_p and hit_t:
            inter += 1
        if hit_p or hit_t:
            union += 1
    return (inter / union if union else None), inter, union


def class_dice(pred, target, cls, ignore_index):
    """Sorensen-Dice of one class on the scored pixels; None when the class is absent from both."""
    inter = n_pred = n_true = 0
    for p, t in zip(pred, target):
        if t == ignore_index:
            continue
        if p == cls:
            n_pred += 1
            if t == cls:
                inter += 1
        if t == cls:
            n_true += 1
    total = n_pred + n_true
    return 2 * inter / total if total else None


def nanmean(values):
    values = [v for v in values if not math.isnan(v)]
    return sum(values) / len(values) if values else float("nan")
