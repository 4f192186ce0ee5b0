"""A small event-driven training engine (ignite/keras flavoured)."""
import time

import torch
import torch.nn.functional as F


class Callback:
    def on_train_begin(self, engine):
        pass

    def on_batch_begin(self, engine, batch):
        pass

    def on_batch_end(self, engine, batch, outputs):
        pass

    def on_epoch_end(self, engine):
        pass

    def on_train_end(self, engine):
        pass


class Engine:
    def __init__(self, model, optimizer, loader, epochs, callbacks=()):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.epochs = epochs
        self.callbacks = list(callbacks)
        self.iteration = 0
        self.epoch = 0
        self.metrics = {}
        self.terminate = False

    def fire(self, event, *args):
        for cb in self.callbacks:
            getattr(cb, event)(self, *args)

    def train_step(self, batch):
        self.model.train()
        logits = self.model(batch["image"])
        s = self.model.stride
        target = batch["semantic"][:, s // 2::s, s // 2::s].long()     # labels at the logit resolution
        loss = F.cross_entropy(logits, target)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return {"loss": loss, "logits": logits.detach()}

    def run(self):
        self.fire("on_train_begin")
        t0 = time.time()
        for self.epoch in range(self.epochs):
            for batch in self.loader:
                self.fire("on_batch_begin", batch)
                outputs = self.train_step(batch)
                self.iteration += 1
                self.fire("on_batch_end", batch, outputs)
                if self.terminate:
                    break
            self.fire("on_epoch_end")
            if self.terminate:
                break
        self.metrics["wall_s"] = time.time() - t0
        self.fire("on_train_end")
