"""Training callbacks: console logging and per-step boundary-F tracking."""
from .metrics import batch_boundary_f1


class Callback:
    def on_step_end(self, step, batch, logits, loss):
        pass

    def summary(self):
        return {}


class BoundaryF1Logger(Callback):
    """Boundary F per class of every training batch (tolerance in pixels)."""

    def __init__(self, class_names, tol):
        self.class_names = class_names
        self.tol = tol
        self.history = []

    def on_step_end(self, step, batch, logits, loss):
        _, masks = batch
        pred = logits.detach().argmax(1)
        self.history.append(batch_boundary_f1(pred, masks, len(self.class_names), self.tol))

    def summary(self):
        if not self.history:
            return {}
        last = self.history[-10:]
        return {
            f"bf_{name}": sum(h[c] for h in last) / len(last)
            for c, name in enumerate(self.class_names)
        } | {"bf_steps": len(self.history)}


class ConsoleLogger(Callback):
    def __init__(self, every, bf_logger=None):
        self.every = every
        self.bf_logger = bf_logger

    def on_step_end(self, step, batch, logits, loss):
        if step % self.every == 0:
            msg = f"step {step} loss {loss.item():.4f}"
            if self.bf_logger is not None and self.bf_logger.history:
                msg += " bf " + " ".join(f"{v:.3f}" for v in self.bf_logger.history[-1])
            print(msg)
