"""Pascal-VOC style mAP@0.5 (all-point interpolation) over a sliding window of recent batches."""
from collections import deque


def box_iou(a, b):
    ix1, iy1 = max(a[0], b[0]), max(a[1], b[1])
    ix2, iy2 = min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, ix2 - ix1) * max(0.0, iy2 - iy1)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def average_precision(tp_flags, n_gt):
    """VOC all-point interpolated AP of detections already sorted by descending score."""
    tp_cum = fp_cum = 0
    precision, recall = [], []
    for tp in tp_flags:
        tp_cum += tp
        fp_cum += 1 - tp
        precision.append(tp_cum / (tp_cum + fp_cum))
        recall.append(tp_cum / n_gt)
    mpre = [0.0] + precision + [0.0]
    mrec = [0.0] + recall + [1.0]
    for i in range(len(mpre) - 2, -1, -1):
        mpre[i] = max(mpre[i], mpre[i + 1])
    ap = 0.0
    for i in range(len(mrec) - 1):
        if mrec[i + 1] != mrec[i]:
            ap += (mrec[i + 1] - mrec[i]) * mpre[i + 1]
    return ap


class SlidingWindowMAP:
    """update() with per-image detections and ground truth; compute() mAP@iou_threshold over the window."""

    def __init__(self, num_classes, window_batches, iou_threshold=0.5):
        self.num_classes = num_classes
        self.iou_threshold = iou_threshold
        self.window = deque(maxlen=window_batches)

    def update(self, preds, targets):
        batch = []
        for p, t in zip(preds, targets):
            batch.append({"boxes": p["boxes"].tolist(), "scores": p["scores"].tolist(), "labels": p["labels"].tolist(),
                          "gt_boxes": t["boxes"].tolist(), "gt_labels": t["labels"].tolist()})
        self.window.append(batch)

    def compute(self):
        images = [img for batch in self.window for img in batch]
        aps = []
        for cls in range(self.num_classes):
            dets = [(score, img_id, box)
                    for img_id, img in enumerate(images)
                    for box, score, label in zip(img["boxes"], img["scores"], img["labels"]) if label == cls]
            n_gt = sum(1 for img in images for label in img["gt_labels"] if label == cls)
            if n_gt == 0:
                continue
            dets = sorted(dets, key=lambda d: -d[0])
            matched = {}
            flags = []
            for score, img_id, box in dets:
                img = images[img_id]
                used = matched.setdefault(img_id, set())
                best_iou, best_j = -1.0, -1
                ious = [box_iou(box, gt) for gt in img["gt_boxes"]]
                for j, (iou, label) in enumerate(zip(ious, img["gt_labels"])):
                    if label == cls and iou > best_iou:
                        best_iou, best_j = iou, j
                if best_iou >= self.iou_threshold and best_j not in used:
                    used.add(best_j)
                    flags.append(1)
                else:
                    flags.append(0)
            aps.append(average_precision(flags, n_gt))
        return sum(aps) / len(aps) if aps else 0.0
