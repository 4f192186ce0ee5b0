"""Rolling calibration / per-class metrics for the training dashboard.

Top-label ECE (Guo et al. 2017), class-wise ECE (Kull et al. 2019), Brier score and per-class
recall, over the last `window` batches of softmax outputs.
"""
from collections import deque


def bin_index(conf, n_bins):
    return min(int(conf * n_bins), n_bins - 1)


def squared_error(p, target):
    total = 0.0
    for k, q in enumerate(p):
        d = q - (1.0 if k == target else 0.0)
        total += d * d
    return total


class ReliabilityBins:
    def __init__(self, n_bins):
        self.count = [0] * n_bins
        self.conf = [0.0] * n_bins
        self.hits = [0] * n_bins

    def add(self, b, conf, hit):
        self.count[b] += 1
        self.conf[b] += conf
        self.hits[b] += hit

    def ece(self, total):
        err = 0.0
        for n, c, h in zip(self.count, self.conf, self.hits):
            if n:
                err += abs(h / n - c / n) * (n / total)
        return err


class RollingCalibration:
    def __init__(self, n_classes, n_bins=15, window=50):
        self.n_classes, self.n_bins = n_classes, n_bins
        self.buffer = deque(maxlen=window)

    def update(self, probs, targets):
        self.buffer.append((probs, targets))

    def compute(self):
        nb, nc = self.n_bins, self.n_classes
        top = ReliabilityBins(nb)
        per_class = [ReliabilityBins(nb) for _ in range(nc)]
        seen, hits = [0] * nc, [0] * nc
        brier, total = 0.0, 0
        for probs, targets in self.buffer:
            for p, t in zip(probs, targets):
                conf = max(p)
                pred = p.index(conf)
                top.add(bin_index(conf, nb), conf, pred == t)
                for k, q in enumerate(p):
                    per_class[k].add(bin_index(q, nb), q, k == t)
                seen[t] += 1
                hits[t] += pred == t
                brier += squared_error(p, t)
                total += 1
        classwise = sum(bins.ece(total) for bins in per_class) / nc
        recall = [h / s if s else float("nan") for h, s in zip(hits, seen)]
        return {"ece": top.ece(total), "cw_ece": classwise, "brier": brier / total,
                "recall": recall, "accuracy": sum(hits) / total}
