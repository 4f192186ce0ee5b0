"""Panoptic quality (Kirillov et al. 2019) for a batch of predictions.

Ground-truth segments: one per thing instance, one per stuff class present.
Predicted segments: 4-connected components of each thing class (smaller than min_area are
ignored), one segment per stuff class present.  A predicted and a ground-truth segment of
the same class match when IoU > 0.5 (which makes the matching unique).
PQ_c = sum(IoU of matches) / (TP + FP/2 + FN/2);  PQ = mean over classes seen.
The semantic mIoU of the same batch comes from a pixel confusion matrix.
"""
from collections import deque

from .scenes import THING_CLASSES


def gt_segments(semantic, instance):
    H, W = len(semantic), len(semantic[0])
    segs = {}
    for y in range(H):
        for x in range(W):
            c = semantic[y][x]
            key = (c, instance[y][x]) if c in THING_CLASSES else (c, 0)
            segs.setdefault(key, set()).add(y * W + x)
    return segs


def pred_segments(pred, min_area):
    H, W = len(pred), len(pred[0])
    seen = [[False] * W for _ in range(H)]
    segs, stuff = {}, {}
    n_things = 0
    for y in range(H):
        for x in range(W):
            c = pred[y][x]
            if c not in THING_CLASSES:
                stuff.setdefault(c, set()).add(y * W + x)
                continue
            if seen[y][x]:
                continue
            comp = set()
            seen[y][x] = True
            queue = deque([(y, x)])
            while queue:
                cy, cx = queue.popleft()
                comp.add(cy * W + cx)
                for ny, nx in ((cy - 1, cx), (cy + 1, cx), (cy, cx - 1), (cy, cx + 1)):
                    if 0 <= ny < H and 0 <= nx < W and not seen[ny][nx] and pred[ny][nx] == c:
                        seen[ny][nx] = True
                        queue.append((ny, nx))
            if len(comp) >= min_area:
                n_things += 1
                segs[(c, n_things)] = comp
    for c, pixels in stuff.items():
        segs[(c, 0)] = pixels
    return segs


class PanopticQuality:
    def __init__(self, n_classes, min_area):
        self.n_classes = n_classes
        self.min_area = min_area

    def __call__(self, pred, semantic, instance):
        """pred, semantic, instance: (B, H, W) integer tensors.
        Returns (pq, pq_things, pq_stuff, miou)."""
        pred, semantic, instance = pred.tolist(), semantic.tolist(), instance.tolist()
        C = self.n_classes
        tp, fp, fn = [0] * C, [0] * C, [0] * C
        iou_sum = [0.0] * C
        confusion = [[0] * C for _ in range(C)]
        for b in range(len(pred)):
            for gt_row, pred_row in zip(semantic[b], pred[b]):
                for g, p in zip(gt_row, pred_row):
                    confusion[g][p] += 1
            gt = gt_segments(semantic[b], instance[b])
            pr = pred_segments(pred[b], self.min_area)
            for c in range(C):
                gts = [(k, s) for k, s in sorted(gt.items()) if k[0] == c]
                preds = [s for k, s in pr.items() if k[0] == c]
                matched = set()
                for _key, gpix in gts:
                    for pi, ppix in enumerate(preds):
                        if pi in matched:
                            continue
                        inter = len(gpix & ppix)
                        if inter == 0:
                            continue
                        iou = inter / (len(gpix) + len(ppix) - inter)
                        if iou > 0.5:
                            tp[c] += 1
                            iou_sum[c] += iou
                            matched.add(pi)
                            break
                    else:
                        fn[c] += 1
                fp[c] += len(preds) - len(matched)
        per_class = {}
        for c in range(C):
            denom = tp[c] + 0.5 * fp[c] + 0.5 * fn[c]
            if denom > 0:
                per_class[c] = iou_sum[c] / denom
        things = [per_class[c] for c in THING_CLASSES if c in per_class]
        stuff = [per_class[c] for c in range(C) if c not in THING_CLASSES and c in per_class]
        pq = sum(per_class.values()) / len(per_class) if per_class else 0.0
        ious = []
        for c in range(C):
            union = sum(confusion[c]) + sum(row[c] for row in confusion) - confusion[c][c]
            if union > 0:
                ious.append(confusion[c][c] / union)
        miou = sum(ious) / len(ious) if ious else 0.0
        return (pq, (sum(things) / len(things) if things else 0.0),
                (sum(stuff) / len(stuff) if stuff else 0.0), miou)
