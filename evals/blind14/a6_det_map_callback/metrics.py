"""VOC-style detection metrics in plain Python: IoU, greedy NMS, and AP@0.5 (all-point interpolation)."""
import heapq


def box_iou(a, b):
    ix1, iy1 = max(a[0], b[0]), max(a[1], b[1])
    ix2, iy2 = min(a[2], b[2]), min(a[3], b[3])
    iw, ih = max(0.0, ix2 - ix1), max(0.0, iy2 - iy1)
    inter = iw * ih
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def nms(boxes, iou_threshold):
    """Greedy NMS over boxes already sorted by score; returns the kept positions."""
    keep = []
    for i, box in enumerate(boxes):
        if all(box_iou(box, boxes[k]) <= iou_threshold for k in keep):
            keep.append(i)
    return keep


def average_precision(tp, fp, n_gt):
    """Area under the interpolated precision-recall curve (VOC2010+ all-point)."""
    ctp = cfp = 0
    rec, prec = [], []
    for t, f in zip(tp, fp):
        ctp += t
        cfp += f
        rec.append(ctp / n_gt)
        prec.append(ctp / (ctp + cfp))
    mrec = [0.0] + rec + [1.0]
    mpre = [0.0] + prec + [0.0]
    for i in range(len(mpre) - 2, -1, -1):
        mpre[i] = max(mpre[i], mpre[i + 1])
    return sum((mrec[i + 1] - mrec[i]) * mpre[i + 1] for i in range(len(mrec) - 1) if mrec[i + 1] != mrec[i])


class DetectionMAP:
    """Accumulates one batch of detections and ground truth; compute() returns mAP@iou_threshold."""

    def __init__(self, n_classes, score_threshold=0.001, topk=100, nms_threshold=0.5, iou_threshold=0.5):
        self.n_classes = n_classes
        self.score_threshold, self.topk = score_threshold, topk
        self.nms_threshold, self.iou_threshold = nms_threshold, iou_threshold

    def detections(self, scores, boxes):
        """scores (C, N) and boxes (N, 4) tensors of one image -> {class: [(score, box)]} after NMS."""
        rows, bx = scores.tolist(), boxes.tolist()
        out = {}
        for c in range(self.n_classes):
            cand = [(s, i) for i, s in enumerate(rows[c]) if s >= self.score_threshold]
            top = heapq.nlargest(self.topk, cand, key=lambda t: t[0])
            keep = nms([bx[i] for _, i in top], self.nms_threshold)
            out[c] = [(top[k][0], bx[top[k][1]]) for k in keep]
        return out

    def __call__(self, scores, boxes, targets):
        dets = {c: [] for c in range(self.n_classes)}
        gts, n_gt = {}, [0] * self.n_classes
        for b in range(scores.shape[0]):
            for c, found in self.detections(scores[b], boxes[b]).items():
                dets[c].extend((s, b, box) for s, box in found)
            for box, label in zip(targets[b]["boxes"].tolist(), targets[b]["labels"].tolist()):
                gts.setdefault((b, label), []).append(box)
                n_gt[label] += 1
        aps = []
        for c in range(self.n_classes):
            if n_gt[c] == 0:
                continue
            matched = set()
            tp, fp = [], []
            for score, b, box in sorted(dets[c], key=lambda d: -d[0]):
                best, best_j = 0.0, -1
                for j, g in enumerate(gts.get((b, c), ())):
                    o = box_iou(box, g)
                    if o > best:
                        best, best_j = o, j
                if best >= self.iou_threshold and (b, best_j) not in matched:
                    matched.add((b, best_j))
                    tp.append(1)
                    fp.append(0)
                else:
                    tp.append(0)
                    fp.append(1)
            aps.append(average_precision(tp, fp, n_gt[c]))
        return sum(aps) / len(aps) if aps else 0.0
