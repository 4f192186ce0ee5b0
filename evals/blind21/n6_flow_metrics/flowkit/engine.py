"""A very small Lightning-like loop: a module with training_step, a Trainer and callbacks."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from .metrics import flow_metrics_per_image
from .model import upsample_flow


class Callback:
    def on_train_start(self, trainer, module):
        pass

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        pass

    def on_train_end(self, trainer, module):
        pass


class FlowModule(nn.Module):
    def __init__(self, net, lr, weight_decay):
        super().__init__()
        self.net = net
        self.lr, self.weight_decay = lr, weight_decay

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.lr, weight_decay=self.weight_decay)

    def training_step(self, batch, batch_idx):
        flow_lr = self.net(batch["image1"].float() / 255.0, batch["image2"].float() / 255.0)
        # PWC-Net style: supervise at the prediction's scale with the downsampled ground truth
        gt_lr = F.avg_pool2d(batch["flow"], 4) / 4.0
        valid_lr = F.avg_pool2d(batch["valid"].float().unsqueeze(1), 4).squeeze(1)
        epe = torch.sum((flow_lr - gt_lr) ** 2, dim=1).sqrt()
        loss = (epe * valid_lr).sum() / valid_lr.sum()
        with torch.no_grad():
            flow = upsample_flow(flow_lr)
        return {"loss": loss, "flow": flow}


class FlowMetricsCallback(Callback):
    """Logs the batch's mean per-image EPE and Fl-all after every optimisation step."""

    def __init__(self, px_thresh, rel_thresh, log_every):
        self.px_thresh, self.rel_thresh, self.log_every = px_thresh, rel_thresh, log_every
        self.history = {"epe": [], "fl_all": []}

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        per_image = flow_metrics_per_image(outputs["flow"], batch["flow"], batch["valid"],
                                           self.px_thresh, self.rel_thresh)
        for key, values in per_image.items():
            self.history.setdefault(key, []).append(sum(values) / len(values))
        if trainer.global_step % self.log_every == 0:
            print(f"step {trainer.global_step:4d}  loss {outputs['loss'].item():.4f}  "
                  f"EPE {self.history['epe'][-1]:.3f}  Fl-all {self.history['fl_all'][-1]:.2f}%", flush=True)


class Trainer:
    def __init__(self, max_epochs, callbacks=(), meter=None):
        self.max_epochs = max_epochs
        self.callbacks = list(callbacks)
        self.meter = meter
        self.global_step = 0

    def _stop(self):
        return self.meter is not None and self.meter.done()

    def fit(self, module, loader):
        optimizer = module.configure_optimizers()
        for cb in self.callbacks:
            cb.on_train_start(self, module)
        for epoch in range(self.max_epochs):
            module.train()
            for batch_idx, batch in enumerate(loader):
                if self.meter is not None:
                    self.meter.batch(batch)
                outputs = module.training_step(batch, batch_idx)
                optimizer.zero_grad(set_to_none=True)
                outputs["loss"].backward()
                optimizer.step()
                self.global_step += 1
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, module, outputs, batch, batch_idx)
                if self.meter is not None:
                    self.meter.step(outputs["loss"])
                if self._stop():
                    break
            if self._stop():
                break
        for cb in self.callbacks:
            cb.on_train_end(self, module)
