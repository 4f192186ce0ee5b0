"""Streaming binary-classification metrics for the training log (epoch-level, reset per epoch).

AUC is the Mann-Whitney statistic with tie-averaged ranks; ECE uses equal-width confidence bins
on max(p, 1 - p); the confusion matrix at a fixed threshold runs over the whole training.
"""


class BinaryMetricTracker:
    def __init__(self, num_bins=15, threshold=0.5):
        self.num_bins = num_bins
        self.threshold = threshold
        self.confusion = [[0, 0], [0, 0]]  # [label][prediction], never reset
        self.reset()

    def reset(self):
        self.scores = []
        self.labels = []

    def update(self, probs, labels):
        probs = probs.detach().flatten().tolist()
        labels = [int(v) for v in labels.flatten().tolist()]
        self.scores.extend(probs)
        self.labels.extend(labels)
        for p, y in zip(probs, labels):
            self.confusion[y][1 if p >= self.threshold else 0] += 1

    def roc_auc(self):
        pairs = sorted(zip(self.scores, self.labels))
        n = len(pairs)
        n_pos = sum(y for _, y in pairs)
        n_neg = n - n_pos
        if n_pos == 0 or n_neg == 0:
            return float("nan")
        rank_sum = 0.0
        i = 0
        while i < n:
            j = i
            while j + 1 < n and pairs[j + 1][0] == pairs[i][0]:
                j += 1
            avg_rank = (i + j) / 2.0 + 1.0
            for k in range(i, j + 1):
                if pairs[k][1] == 1:
                    rank_sum += avg_rank
            i = j + 1
        return (rank_sum - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)

    def calibration(self):
        """(ECE, Brier score)."""
        counts = [0] * self.num_bins
        conf_sum = [0.0] * self.num_bins
        correct = [0] * self.num_bins
        brier = 0.0
        for p, y in zip(self.scores, self.labels):
            b = min(int(p * self.num_bins), self.num_bins - 1)
            pred = 1 if p >= self.threshold else 0
            counts[b] += 1
            conf_sum[b] += max(p, 1.0 - p)
            correct[b] += pred == y
            brier += (p - y) ** 2
        n = len(self.scores)
        ece = 0.0
        for c, s, k in zip(counts, conf_sum, correct):
            if c:
                ece += c / n * abs(k / c - s / c)
        return ece, brier / n

    def confusion_stats(self):
        (tn, fp), (fn, tp) = self.confusion
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {"precision": precision, "recall": recall, "f1": f1}

    def compute(self):
        ece, brier = self.calibration()
        return {"auc": self.roc_auc(), "ece": ece, "brier": brier, **self.confusion_stats()}
