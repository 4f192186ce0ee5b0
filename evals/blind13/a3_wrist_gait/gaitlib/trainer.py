"""A small trainer with callbacks (fit / on_step_end / on_epoch_end)."""
import torch
import torch.nn.functional as F


class Callback:
    def on_step_end(self, trainer, batch, loss):
        pass

    def on_epoch_end(self, trainer):
        pass


class LoggingCallback(Callback):
    def __init__(self, every):
        self.every = every

    def on_step_end(self, trainer, batch, loss):
        if trainer.global_step % self.every == 0:
            print(f"epoch {trainer.epoch} step {trainer.global_step} loss {loss.item():.4f}")

    def on_epoch_end(self, trainer):
        print(f"epoch {trainer.epoch} mean loss {trainer.epoch_losses[-1]:.4f}")


class Trainer:
    def __init__(self, model, optimizer, loader, meter, callbacks=()):
        self.model, self.optimizer, self.loader, self.meter = model, optimizer, loader, meter
        self.callbacks = list(callbacks)
        self.global_step = 0
        self.epoch = 0
        self.epoch_losses = []
        self.stop = False

    def training_step(self, batch):
        logits = self.model(batch.signal, batch.features)
        return F.cross_entropy(logits, batch.label)

    def fit(self, max_epochs):
        self.model.train()
        for self.epoch in range(max_epochs):
            total, count = 0.0, 0
            for batch in self.loader:
                self.meter.batch(batch)
                loss = self.training_step(batch)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
                self.meter.step(loss)
                self.global_step += 1
                total += loss.item()
                count += 1
                for cb in self.callbacks:
                    cb.on_step_end(self, batch, loss)
                if self.meter.done():
                    self.stop = True
                    break
            self.epoch_losses.append(total / max(count, 1))
            for cb in self.callbacks:
                cb.on_epoch_end(self)
            if self.stop:
                break
        return self
