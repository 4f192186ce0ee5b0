"""Streaming classification metrics: top-k accuracy, confusion matrix / macro-F1, and calibration (ECE)."""


def topk_indices(row, k):
    """Indices of the k largest scores, highest first (ties: lower index first)."""
    return sorted(range(len(row)), key=lambda j: row[j], reverse=True)[:k]


class MetricTracker:
    def __init__(self, num_classes, topk=(1, 5), ece_bins=15):
        self.num_classes = num_classes
        self.topk = topk
        self.ece_bins = ece_bins
        self.reset()

    def reset(self):
        self.n = 0
        self.topk_hits = {k: 0 for k in self.topk}
        self.confusion = {t: {p: 0 for p in range(self.num_classes)} for t in range(self.num_classes)}
        self.bin_count = [0] * self.ece_bins
        self.bin_conf = [0.0] * self.ece_bins
        self.bin_correct = [0] * self.ece_bins

    def update(self, logits, probs, targets):
        logits = logits.tolist()
        probs = probs.tolist()
        targets = targets.tolist()
        for row, prob, target in zip(logits, probs, targets):
            for k in self.topk:
                if target in topk_indices(row, k):
                    self.topk_hits[k] += 1
            conf = max(prob)
            pred = prob.index(conf)
            self.confusion[target][pred] += 1
            b = min(int(conf * self.ece_bins), self.ece_bins - 1)
            self.bin_count[b] += 1
            self.bin_conf[b] += conf
            self.bin_correct[b] += int(pred == target)
            self.n += 1

    def macro_f1(self):
        f1s = []
        for c in range(self.num_classes):
            tp = self.confusion[c][c]
            fp = sum(self.confusion[r][c] for r in range(self.num_classes)) - tp
            fn = sum(self.confusion[c].values()) - tp
            denom = 2 * tp + fp + fn
            f1s.append(2 * tp / denom if denom else 0.0)
        return sum(f1s) / len(f1s)

    def ece(self):
        total = 0.0
        for count, conf, correct in zip(self.bin_count, self.bin_conf, self.bin_correct):
            if count:
                total += abs(correct / count - conf / count) * count / self.n
        return total

    def compute(self):
        out = {f"top{k}": hits / self.n for k, hits in self.topk_hits.items()}
        out.update(macro_f1=self.macro_f1(), ece=self.ece())
        return out
