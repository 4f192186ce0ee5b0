from .metrics import confusion_matrix, quadratic_weighted_kappa


class KappaLogger:
    """Per-step agreement logging: the batch's QWK, the epoch-to-date QWK and confusion matrix."""

    def __init__(self, n_grades, log_every=20, grade_names=None):
        self.n_grades = n_grades
        self.log_every = log_every
        self.grade_names = grade_names or [str(g) for g in range(n_grades)]
        self.reset()

    def reset(self):
        self.targets = []
        self.preds = []
        self.history = []

    def on_train_batch_end(self, step, preds, targets):
        preds = preds.tolist()
        targets = targets.tolist()
        self.preds.extend(preds)
        self.targets.extend(targets)
        batch_qwk = quadratic_weighted_kappa(targets, preds, 0, self.n_grades - 1)
        epoch_qwk = quadratic_weighted_kappa(self.targets, self.preds, 0, self.n_grades - 1)
        cm = confusion_matrix(self.targets, self.preds, 0, self.n_grades - 1)
        self.history.append({"step": step, "batch_qwk": batch_qwk, "epoch_qwk": epoch_qwk})
        if step % self.log_every == 0:
            print(f"step {step}  qwk(batch) {batch_qwk:.3f}  qwk(epoch) {epoch_qwk:.3f}", flush=True)
            print(self.format_confusion(cm), flush=True)
        self.last_confusion = cm

    def format_confusion(self, cm):
        w = max(len(n) for n in self.grade_names)
        lines = [" " * w + " | " + " ".join(f"{n[:5]:>6}" for n in self.grade_names)]
        for name, row in zip(self.grade_names, cm):
            lines.append(f"{name:>{w}} | " + " ".join(f"{v:>6d}" for v in row))
        return "\n".join(lines)
