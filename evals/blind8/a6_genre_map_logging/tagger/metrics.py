"""Running multi-label metrics over a sliding window of recent predictions (logged every step)."""
import statistics
from collections import deque


def average_precision(scores, labels):
    """AP of one class: mean precision at the rank of each positive (scores sorted high to low)."""
    ranked = sorted(zip(scores, labels), key=lambda p: p[0], reverse=True)
    hits, total = 0, 0.0
    for rank, (_, y) in enumerate(ranked, start=1):
        if y:
            hits += 1
            total += hits / rank
    return total / hits if hits else None


def top_k(row, k):
    return sorted(range(len(row)), key=lambda c: row[c], reverse=True)[:k]


def f1_from_counts(tp, fp, fn):
    denom = 2 * tp + fp + fn
    return 2 * tp / denom if denom else 0.0


class RunningTagMetrics:
    def __init__(self, num_classes, window, topk, threshold, loss_window):
        self.num_classes = num_classes
        self.scores = deque(maxlen=window)   # one list of class scores per sample
        self.targets = deque(maxlen=window)
        self.losses = deque(maxlen=loss_window)
        self.topk = topk
        self.threshold = threshold

    def update(self, probs, targets, loss):
        self.scores.extend(probs.tolist())
        self.targets.extend([[int(v) for v in row] for row in targets.tolist()])
        self.losses.append(loss)

    def per_class_ap(self):
        aps = []
        for c in range(self.num_classes):
            col_s = [row[c] for row in self.scores]
            col_y = [row[c] for row in self.targets]
            aps.append(average_precision(col_s, col_y))
        return aps

    def compute(self):
        aps = self.per_class_ap()
        valid = [a for a in aps if a is not None]
        hits = 0
        for row, tgt in zip(self.scores, self.targets):
            if any(tgt[c] for c in top_k(row, self.topk)):
                hits += 1
        micro = [0, 0, 0]
        per_class_f1 = []
        for c in range(self.num_classes):
            tp = fp = fn = 0
            for row, tgt in zip(self.scores, self.targets):
                pred = row[c] >= self.threshold
                if pred and tgt[c]:
                    tp += 1
                elif pred:
                    fp += 1
                elif tgt[c]:
                    fn += 1
            micro[0] += tp
            micro[1] += fp
            micro[2] += fn
            per_class_f1.append(f1_from_counts(tp, fp, fn))
        return {
            "mAP": sum(valid) / len(valid) if valid else 0.0,
            "per_class_ap": aps,
            f"top{self.topk}_hit": hits / len(self.scores),
            "micro_f1": f1_from_counts(*micro),
            "macro_f1": sum(per_class_f1) / len(per_class_f1),
            "median_loss": statistics.median(self.losses),
        }
