"""Trainer callbacks."""
from collections import deque

from .metrics import average_precision, decode_heatmaps, oks, pck


class Callback:
    def on_train_start(self, trainer):
        pass

    def on_train_batch_end(self, trainer, outputs, batch, step):
        pass

    def on_train_end(self, trainer):
        pass


class KeypointMetrics(Callback):
    """Logs PCK@alpha and OKS AP, every step, over the predictions of the last `window` batches.

    Like a torchmetrics-style metric, it keeps the raw predictions (heatmaps) and targets of the
    window and evaluates them from scratch in compute()."""

    def __init__(self, window, pck_alpha, stride):
        self.window, self.alpha, self.stride = window, pck_alpha, stride
        self.buffer = deque(maxlen=window)
        self.history = []

    def update(self, heatmaps, keypoints, visibility, areas):
        self.buffer.append((heatmaps.detach(), keypoints, visibility, areas))

    def compute(self):
        scores, matched, hit, total = [], [], 0, 0
        for heatmaps, keypoints, visibility, areas in self.buffer:
            for hm, gt, v, area in zip(heatmaps.tolist(), keypoints.tolist(), visibility.tolist(), areas.tolist()):
                coords, maxvals = decode_heatmaps(hm, self.stride)
                n_vis = sum(1 for vv in v if vv > 0)
                scores.append(sum(m for m, vv in zip(maxvals, v) if vv > 0) / max(1, n_vis))
                matched.append(oks(coords, gt, v, area))
                h, n = pck(coords, gt, v, self.alpha * max(area, 1.0) ** 0.5)
                hit += h
                total += n
        ap = average_precision(scores, matched, len(scores))
        return hit / max(total, 1), ap

    def on_train_batch_end(self, trainer, outputs, batch, step):
        self.update(outputs, batch[2], batch[3], batch[4])
        pck_value, ap = self.compute()
        self.history.append({"step": step, "pck": pck_value, "ap": ap})
        trainer.log("pck", pck_value)
        trainer.log("oks_ap", ap)
