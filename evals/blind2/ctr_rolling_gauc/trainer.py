"""A minimal Lightning-flavoured trainer: fit() drives the loop, hooks do the logging."""
import torch
import torch.nn.functional as F

import evalkit
from metrics import RollingRankingMetrics


class Trainer:
    def __init__(self, max_epochs, metric_window, log_every=20):
        self.max_epochs = max_epochs
        self.log_every = log_every
        self.metrics = RollingRankingMetrics(metric_window)
        self.logged = {}
        self.global_step = 0
        self.meter = evalkit.Meter()

    def log(self, name, value):
        self.logged.setdefault(name, []).append(value)

    def training_step(self, model, batch):
        dense, cats, clicks = batch
        logits = model(dense, cats)
        loss = F.binary_cross_entropy_with_logits(logits, clicks)
        return loss, logits.detach()

    def on_train_batch_end(self, loss, logits, batch):
        _, cats, clicks = batch
        self.metrics.update(torch.sigmoid(logits), clicks, cats[:, 0])
        for name, value in self.metrics.compute().items():
            self.log(f"train/{name}", value)
        self.log("train/loss", loss.item())
        if self.global_step % self.log_every == 0:
            last = {k: v[-1] for k, v in self.logged.items()}
            print(f"step {self.global_step}: " + "  ".join(f"{k}={v:.4f}" for k, v in last.items() if v is not None))

    def fit(self, model, optimizer, loader):
        for epoch in range(self.max_epochs):
            model.train()
            for batch in loader:
                self.meter.batch(batch)
                loss, logits = self.training_step(model, batch)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                self.meter.step(loss)
                self.global_step += 1
                self.on_train_batch_end(loss, logits, batch)
                if self.meter.done():
                    return
            self.log("epoch_end_step", self.global_step)

    def report(self):
        self.meter.report(extra={"logged": self.logged, "global_step": self.global_step})
