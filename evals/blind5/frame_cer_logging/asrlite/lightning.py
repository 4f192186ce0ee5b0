"""Just enough of a Lightning-style loop for this project."""
import torch


class LightningModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._logs = {}

    def log(self, key, value):
        self._logs.setdefault(key, []).append(value)

    @property
    def logged(self):
        return self._logs


class Trainer:
    def __init__(self, max_epochs, log_every_n_steps=50, meter=None):
        self.max_epochs = max_epochs
        self.log_every_n_steps = log_every_n_steps
        self.meter = meter
        self.global_step = 0

    def fit(self, module, train_dataloader):
        optimizer = module.configure_optimizers()
        for epoch in range(self.max_epochs):
            module.train()
            for batch_idx, batch in enumerate(train_dataloader):
                if self.meter is not None:
                    self.meter.batch(batch.tensors())
                loss = module.training_step(batch, batch_idx)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                self.global_step += 1
                module.on_train_batch_end(batch, batch_idx)
                if self.meter is not None:
                    self.meter.step(loss)
                    if self.meter.done():
                        return
                if self.global_step % self.log_every_n_steps == 0:
                    last = {k: v[-1] for k, v in module.logged.items()}
                    print(f"epoch {epoch} step {self.global_step} {last}")
            module.on_train_epoch_end(epoch)
