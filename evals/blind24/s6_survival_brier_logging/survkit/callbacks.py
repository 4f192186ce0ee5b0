from .loop import Callback
from .metrics import integrated_brier_score
from .model import survival_curves


class BrierScoreLogger(Callback):
    """Log the batch's integrated Brier score (IPCW) after every optimisation step."""

    def __init__(self, grid_days):
        self.grid = list(grid_days)
        self.history = []

    def on_batch_end(self, loop, batch, logits, loss):
        surv = survival_curves(logits.detach()).tolist()
        times = batch["days"].tolist()
        events = batch["event"].tolist()
        self.history.append(integrated_brier_score(surv, times, events, self.grid))

    def on_epoch_end(self, loop, epoch):
        recent = self.history[-10:]
        print(f"epoch {epoch}: step {loop.global_step} IBS(last 10) {sum(recent) / len(recent):.4f}")
