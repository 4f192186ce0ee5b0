import torch

from .engine import Callback
from .pq import PanopticQuality


class PanopticQualityCallback(Callback):
    """Tracks the training-batch PQ after every step."""

    def __init__(self, n_classes, min_area):
        self.metric = PanopticQuality(n_classes, min_area)
        self.history = []
        self.miou_history = []

    def on_batch_end(self, engine, batch, outputs):
        with torch.no_grad():
            s = engine.model.stride
            pred = outputs["logits"].argmax(dim=1).repeat_interleave(s, 1).repeat_interleave(s, 2)
        pq, pq_th, pq_st, miou = self.metric(pred, batch["semantic"].long(), batch["instance"].long())
        engine.metrics.update(pq=pq, pq_things=pq_th, pq_stuff=pq_st, miou=miou)
        self.history.append(pq)
        self.miou_history.append(miou)


class ConsoleLogger(Callback):
    def __init__(self, every):
        self.every = every

    def on_batch_end(self, engine, batch, outputs):
        if engine.iteration % self.every == 0:
            m = engine.metrics
            print(f"ep {engine.epoch} it {engine.iteration:4d} loss {outputs['loss'].item():.4f} "
                  f"PQ {m.get('pq', 0):.3f} (th {m.get('pq_things', 0):.3f} st {m.get('pq_stuff', 0):.3f}) "
                  f"mIoU {m.get('miou', 0):.3f}")


class MeterCallback(Callback):
    def __init__(self, meter):
        self.meter = meter

    def on_batch_begin(self, engine, batch):
        self.meter.batch(batch)

    def on_batch_end(self, engine, batch, outputs):
        self.meter.step(outputs["loss"])
        if self.meter.done():
            engine.terminate = True
