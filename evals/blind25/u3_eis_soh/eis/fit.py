"""Minimal Lightning-like Trainer: fit(module, datamodule)."""
import torch

from evalkit import Meter


class Trainer:
    def __init__(self, max_epochs, gradient_clip_val=None, log_every_n_steps=10):
        self.max_epochs = max_epochs
        self.gradient_clip_val = gradient_clip_val
        self.log_every_n_steps = log_every_n_steps
        self.global_step = 0
        self.val_history = []

    def fit(self, module, datamodule):
        datamodule.setup()
        optimizers, schedulers = module.configure_optimizers()
        opt, sched = optimizers[0], schedulers[0]
        self.meter = meter = Meter()
        for epoch in range(self.max_epochs):
            module.train()
            for batch_idx, batch in enumerate(datamodule.train_dataloader()):
                meter.batch(batch)
                loss = module.training_step(batch, batch_idx)
                opt.zero_grad()
                loss.backward()
                if self.gradient_clip_val:
                    torch.nn.utils.clip_grad_norm_(module.parameters(), self.gradient_clip_val)
                opt.step()
                meter.step(loss)
                self.global_step += 1
                if self.global_step % self.log_every_n_steps == 0:
                    print(f"epoch {epoch} step {self.global_step} loss {loss.item():.5f} "
                          f"train_mae {module.logged['train_mae'][-1]:.4f}")
                if meter.done():
                    break
            sched.step()
            if meter.done():
                break
        self.val_history.append(self.validate(module, datamodule))
        return meter

    @torch.no_grad()
    def validate(self, module, datamodule):
        module.eval()
        err, n = 0.0, 0
        for batch_idx, batch in enumerate(datamodule.val_dataloader()):
            s, k = module.validation_step(batch, batch_idx)
            err += float(s)
            n += k
        module.train()
        return err / max(n, 1)
