"""Just enough of the PyTorch Lightning API to run a LightningModule on CPU."""
import torch
import torch.nn as nn


class LightningModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.trainer = None
        self._logged = {}

    def log(self, name, value, prog_bar=False):
        self._logged[name] = float(value.detach()) if torch.is_tensor(value) else float(value)

    def training_step(self, batch, batch_idx):
        raise NotImplementedError

    def configure_optimizers(self):
        raise NotImplementedError


class LightningDataModule:
    def __init__(self):
        pass

    def setup(self, stage=None):
        pass

    def on_epoch_start(self, epoch):
        pass


class Callback:
    def on_train_start(self, trainer, pl_module):
        pass

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        pass

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        pass

    def on_train_epoch_end(self, trainer, pl_module):
        pass

    def on_train_end(self, trainer, pl_module):
        pass


class Trainer:
    def __init__(self, max_epochs=1, callbacks=(), gradient_clip_val=None, log_every_n_steps=50):
        self.max_epochs = max_epochs
        self.callbacks = list(callbacks)
        self.gradient_clip_val = gradient_clip_val
        self.log_every_n_steps = log_every_n_steps
        self.global_step = 0
        self.current_epoch = 0
        self.should_stop = False
        self.callback_metrics = {}

    def _call(self, hook, *args):
        for cb in self.callbacks:
            getattr(cb, hook)(self, *args)

    def fit(self, model, datamodule):
        model.trainer = self
        datamodule.setup("fit")
        loader = datamodule.train_dataloader()
        conf = model.configure_optimizers()
        optimizer, scheduler = conf["optimizer"], conf.get("lr_scheduler")
        self._call("on_train_start", model)
        for epoch in range(self.max_epochs):
            self.current_epoch = epoch
            datamodule.on_epoch_start(epoch)
            model.train()
            for batch_idx, batch in enumerate(loader):
                self._call("on_train_batch_start", model, batch, batch_idx)
                loss = model.training_step(batch, batch_idx)
                optimizer.zero_grad()
                loss.backward()
                if self.gradient_clip_val:
                    nn.utils.clip_grad_norm_(model.parameters(), self.gradient_clip_val)
                optimizer.step()
                if scheduler is not None:
                    scheduler.step()
                self.global_step += 1
                self.callback_metrics.update(model._logged)
                if self.global_step % self.log_every_n_steps == 0:
                    shown = " ".join(f"{k}={v:.4f}" for k, v in sorted(model._logged.items()))
                    print(f"epoch {epoch} step {self.global_step}: {shown}")
                self._call("on_train_batch_end", model, {"loss": loss}, batch, batch_idx)
                if self.should_stop:
                    break
            self._call("on_train_epoch_end", model)
            if self.should_stop:
                break
        self._call("on_train_end", model)
