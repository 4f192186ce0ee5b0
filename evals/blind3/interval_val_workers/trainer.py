import torch
import torch.nn.functional as F


class Trainer:
    """A small fit loop with Lightning's val_check_interval semantics (validate every N train steps)."""

    def __init__(self, max_epochs, val_check_interval, meter):
        self.max_epochs = max_epochs
        self.val_check_interval = val_check_interval
        self.meter = meter
        self.global_step = 0
        self.val_history = []

    @torch.no_grad()
    def validate(self, model, loader):
        model.eval()
        total, correct, n = 0.0, 0, 0
        for batch in loader:
            logits = model(batch["image"])
            total += F.cross_entropy(logits, batch["label"], reduction="sum").item()
            correct += (logits.argmax(-1) == batch["label"]).sum().item()
            n += len(batch["label"])
        model.train()
        self.val_history.append({"step": self.global_step, "val_loss": round(total / n, 6),
                                 "val_acc": round(correct / n, 6)})

    def fit(self, model, optimizer, datamodule, generator):
        model.train()
        for epoch in range(self.max_epochs):
            for batch in datamodule.train_dataloader(generator):
                self.meter.batch(batch)
                loss = F.cross_entropy(model(batch["image"]), batch["label"])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                self.meter.step(loss)
                self.global_step += 1
                if self.global_step % self.val_check_interval == 0:
                    self.validate(model, datamodule.val_dataloader())
                    print(f"step {self.global_step} {self.val_history[-1]}", flush=True)
                if self.meter.done():
                    return
