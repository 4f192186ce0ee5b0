import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self, dim, hidden, num_classes, dropout):
        super().__init__()
        self.net = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, hidden), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(hidden, num_classes))

    def forward(self, x):
        return self.net(x)


class Trainer:
    def __init__(self, model, optimizer, callbacks=(), meter=None):
        self.model = model
        self.optimizer = optimizer
        self.callbacks = list(callbacks)
        self.meter = meter
        self.global_step = 0
        self.criterion = nn.BCEWithLogitsLoss()

    def fit(self, loader, epochs):
        self.model.train()
        for _ in range(epochs):
            for batch in loader:
                if self.meter is not None:
                    self.meter.batch(batch)
                x, y = batch
                logits = self.model(x)
                loss = self.criterion(logits, y)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
                self.global_step += 1
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, {"loss": loss, "logits": logits}, batch)
                if self.meter is not None:
                    self.meter.step(loss)
                    if self.meter.done():
                        return
