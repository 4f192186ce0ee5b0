"""Training callbacks: running multi-label metrics at several decision thresholds, and a console logger."""
import collections


class Callback:
    def on_train_begin(self, trainer):
        pass

    def on_batch_end(self, trainer, outputs):
        pass

    def on_train_end(self, trainer):
        pass


def prf(tp, fp, fn):
    """Precision, recall, F1 with zero_division=0 (sklearn's convention)."""
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


class ThresholdMetrics(Callback):
    """Per-label precision / recall / F1 at every threshold over the last `window` batches, with micro
    and macro averages; the best macro-F1 threshold is tracked every step."""

    def __init__(self, thresholds, n_labels, window):
        self.thresholds = sorted(thresholds)
        self.n_labels = n_labels
        self.recent = collections.deque(maxlen=window)
        self.history = []
        self.latest = {}

    def _counts(self, rows):
        """counts[label][threshold index] = (tp, fp, fn), from a descending sweep over the sorted scores."""
        counts = []
        for j in range(self.n_labels):
            pairs = sorted(((probs[j], targets[j]) for probs, targets in rows), reverse=True)
            positives = sum(t for _, t in pairs)
            per_threshold = [None] * len(self.thresholds)
            tp = fp = k = 0
            for ti in range(len(self.thresholds) - 1, -1, -1):
                thr = self.thresholds[ti]
                while k < len(pairs) and pairs[k][0] >= thr:
                    if pairs[k][1]:
                        tp += 1
                    else:
                        fp += 1
                    k += 1
                per_threshold[ti] = (tp, fp, positives - tp)
            counts.append(per_threshold)
        return counts

    def on_batch_end(self, trainer, outputs):
        probs = outputs["probs"].tolist()
        targets = outputs["targets"].int().tolist()
        self.recent.append(list(zip(probs, targets)))
        rows = [row for batch in self.recent for row in batch]
        counts = self._counts(rows)

        summary = {}
        for ti, thr in enumerate(self.thresholds):
            per_label = [prf(*counts[j][ti]) for j in range(self.n_labels)]
            macro_p = sum(p for p, _, _ in per_label) / self.n_labels
            macro_r = sum(r for _, r, _ in per_label) / self.n_labels
            macro_f1 = sum(f for _, _, f in per_label) / self.n_labels
            tp = sum(counts[j][ti][0] for j in range(self.n_labels))
            fp = sum(counts[j][ti][1] for j in range(self.n_labels))
            fn = sum(counts[j][ti][2] for j in range(self.n_labels))
            micro_p, micro_r, micro_f1 = prf(tp, fp, fn)
            summary[f"{thr:g}"] = {"macro_p": macro_p, "macro_r": macro_r, "macro_f1": macro_f1,
                                   "micro_p": micro_p, "micro_r": micro_r, "micro_f1": micro_f1,
                                   "label_f1": [f for _, _, f in per_label]}
        best = max(summary, key=lambda k: (summary[k]["macro_f1"], -float(k)))
        self.latest = summary
        self.history.append((trainer.global_step, best, summary[best]["macro_f1"], summary[best]["micro_f1"]))


class ConsoleLogger(Callback):
    def __init__(self, every):
        self.every = every

    def on_batch_end(self, trainer, outputs):
        if trainer.global_step % self.every == 0:
            metrics = trainer.metrics
            step, best, macro_f1, micro_f1 = metrics.history[-1]
            print(f"step {step} loss {outputs['loss']:.4f} best thr {best} macro-F1 {macro_f1:.3f} "
                  f"micro-F1 {micro_f1:.3f}")
