import torch

from .metrics import lwlrap, precision_at_threshold


class Callback:
    def on_train_batch_end(self, trainer, outputs, batch):
        pass


class TaggingMetrics(Callback):
    """Logs lwlrap and macro precision on every training batch."""

    def __init__(self, threshold=0.5, log_every=20):
        self.threshold = threshold
        self.log_every = log_every
        self.history = []

    def on_train_batch_end(self, trainer, outputs, batch):
        logits = outputs["logits"].detach()
        truth = batch[1]
        score, _, _ = lwlrap(logits, truth)
        precision = precision_at_threshold(torch.sigmoid(logits), truth, self.threshold)
        macro_p = sum(precision) / len(precision)
        self.history.append({"step": trainer.global_step, "lwlrap": score, "precision": macro_p})
        if trainer.global_step % self.log_every == 0:
            print(f"step {trainer.global_step}: loss {outputs['loss'].item():.4f} lwlrap {score:.4f} P@{self.threshold} {macro_p:.4f}")
