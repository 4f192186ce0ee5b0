"""Trainer callbacks: loss history and multi-label metrics over a sliding window of batches."""
from collections import deque


class Callback:
    def on_train_begin(self, trainer):
        pass

    def on_step_end(self, trainer, batch, outputs, loss):
        pass

    def on_train_end(self, trainer):
        pass


class LossHistory(Callback):
    def __init__(self):
        self.losses = []

    def on_step_end(self, trainer, batch, outputs, loss):
        self.losses.append(loss)


def f1_from_counts(tp, fp, fn):
    denom = 2 * tp + fp + fn
    return 2 * tp / denom if denom else None  # None: label absent and never predicted


class MultiLabelMetrics(Callback):
    """Micro-F1, macro-F1 and Hamming loss at several thresholds, logged every step.

    Computed over the last `window` batches (probabilities and targets), so the numbers are
    smoother than single-batch ones. Labels with no positives and no predictions in the window
    are left out of the macro average.
    """

    def __init__(self, thresholds=(0.5,), window=8):
        self.thresholds = tuple(thresholds)
        self.window = deque(maxlen=window)
        self.history = []

    def on_step_end(self, trainer, batch, outputs, loss):
        probs = outputs.detach().sigmoid().tolist()
        targets = batch["labels"].tolist()
        self.window.append((probs, targets))
        record = {"step": trainer.global_step}
        for t in self.thresholds:
            record.update({f"{k}@{t}": v for k, v in self._scores(t).items()})
        self.history.append(record)
        trainer.log(record)

    def _scores(self, threshold):
        num_labels = len(self.window[0][1][0])
        tp = [0] * num_labels
        fp = [0] * num_labels
        fn = [0] * num_labels
        wrong = cells = 0
        for probs, targets in self.window:
            for p_row, y_row in zip(probs, targets):
                for j, (p, y) in enumerate(zip(p_row, y_row)):
                    pred = p >= threshold
                    if pred and y:
                        tp[j] += 1
                    elif pred:
                        fp[j] += 1
                        wrong += 1
                    elif y:
                        fn[j] += 1
                        wrong += 1
                cells += len(y_row)
        per_label = [f for f in map(f1_from_counts, tp, fp, fn) if f is not None]
        micro = f1_from_counts(sum(tp), sum(fp), sum(fn))
        return {
            "micro_f1": micro if micro is not None else 0.0,
            "macro_f1": sum(per_label) / len(per_label) if per_label else 0.0,
            "hamming": wrong / cells,
        }

    def best(self, key):
        return max((r[key] for r in self.history), default=None)
