"""Training engine with callbacks (on_train_begin / on_step_end / on_epoch_end / on_train_end)."""
import torch

from evalkit import Meter

from .metrics import aupro, pro_curve


class Callback:
    def on_train_begin(self, engine): pass
    def on_step_end(self, engine, batch, outputs, logs): pass
    def on_epoch_end(self, engine, epoch, logs): pass
    def on_train_end(self, engine, logs): pass


class PROMonitor(Callback):
    """Tracks the training-batch AUPRO every step."""

    def __init__(self, thresholds, max_fpr):
        self.thresholds = thresholds
        self.max_fpr = max_fpr
        self.history = []

    def on_step_end(self, engine, batch, outputs, logs):
        _, masks = batch
        probs = torch.sigmoid(outputs.detach())[:, 0].tolist()
        gt = masks[:, 0].to(torch.int64).tolist()
        curve = pro_curve(probs, gt, self.thresholds)
        logs["aupro"] = aupro(curve, self.max_fpr)
        logs["pro@0.5"] = curve[len(curve) // 2][1]
        self.history.append(logs["aupro"])


class ProgressPrinter(Callback):
    def __init__(self, every):
        self.every = every

    def on_step_end(self, engine, batch, outputs, logs):
        if engine.step % self.every == 0:
            print(f"step {engine.step:4d} loss {logs['loss']:.4f} aupro {logs.get('aupro', float('nan')):.4f}")


class Engine:
    def __init__(self, model, optimizer, loss_fn, callbacks=()):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.callbacks = list(callbacks)
        self.step = 0

    def _fire(self, name, *args):
        for cb in self.callbacks:
            getattr(cb, name)(self, *args)

    def fit(self, loader, epochs):
        meter = Meter()
        self._fire("on_train_begin")
        for epoch in range(epochs):
            for batch in loader:
                meter.batch(batch)
                images, masks = batch
                outputs = self.model(images)
                loss = self.loss_fn(outputs, masks)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.step += 1
                logs = {"loss": loss.item()}
                self._fire("on_step_end", batch, outputs, logs)
                meter.step(loss)
                if meter.done():
                    break
            self._fire("on_epoch_end", epoch, {})
            if meter.done():
                break
        self._fire("on_train_end", {})
        return meter
