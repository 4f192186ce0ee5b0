"""A very small Lightning-like training scaffold (module / callbacks / trainer)."""
import torch


class LiteModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.logged = {}

    def log(self, name, value):
        self.logged.setdefault(name, []).append(float(value))

    def training_step(self, batch, batch_idx):
        raise NotImplementedError

    def configure_optimizers(self):
        raise NotImplementedError


class Callback:
    def on_train_batch_start(self, trainer, batch, batch_idx):
        pass

    def on_train_batch_end(self, trainer, loss, batch_idx):
        pass

    def on_fit_end(self, trainer, module):
        pass


class Trainer:
    def __init__(self, max_steps, callbacks=(), log_every_n_steps=50):
        self.max_steps = max_steps
        self.callbacks = list(callbacks)
        self.log_every_n_steps = log_every_n_steps
        self.global_step = 0
        self.should_stop = False

    def fit(self, module, datamodule):
        datamodule.setup()
        loader = datamodule.train_dataloader()
        optimizer = module.configure_optimizers()
        module.train()
        epoch = 0
        while not self.should_stop and self.global_step < self.max_steps:
            for batch_idx, batch in enumerate(loader):
                for cb in self.callbacks:
                    cb.on_train_batch_start(self, batch, batch_idx)
                loss = module.training_step(batch, batch_idx)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                self.global_step += 1
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, loss, batch_idx)
                if self.global_step % self.log_every_n_steps == 0:
                    print(f"epoch {epoch} step {self.global_step} loss {loss.item():.4f}")
                if self.should_stop or self.global_step >= self.max_steps:
                    break
            epoch += 1
        for cb in self.callbacks:
            cb.on_fit_end(self, module)
