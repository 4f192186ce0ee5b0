"""LightningModule-style wind-profile regressor and a minimal fit loop."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class WindProfileModule(nn.Module):
    def __init__(self, num_beams, num_gates, lr=2e-3):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(
            nn.Conv1d(num_beams * 4, 32, kernel_size=3, padding=1), nn.GELU(),
            nn.Conv1d(32, 32, kernel_size=3, padding=1), nn.GELU(),
            nn.Conv1d(32, 2, kernel_size=1),
        )
        self.logged = {}

    def forward(self, feats):
        b, beams, k, g = feats.shape
        # SNR in dB is large; bring it to the scale of the velocities
        scale = feats.new_tensor([1.0, 1.0, 0.1, 1.0]).view(1, 1, 4, 1)
        x = (feats * scale).reshape(b, beams * k, g)
        return self.net(x)

    def log(self, name, value):
        self.logged[name] = value

    def training_step(self, batch, batch_idx):
        feats, target = batch
        pred = self(feats)
        loss = F.mse_loss(pred, target)
        self.log("train_loss", loss.detach())
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


class Callback:
    def on_train_batch_start(self, trainer, module, batch, batch_idx):
        pass

    def on_train_batch_end(self, trainer, module, loss, batch_idx):
        pass


class PrintLoss(Callback):
    def __init__(self, every):
        self.every = every

    def on_train_batch_end(self, trainer, module, loss, batch_idx):
        if trainer.global_step % self.every == 0:
            print(f"epoch {trainer.current_epoch} step {trainer.global_step} train_loss {float(module.logged['train_loss']):.4f}")


class Trainer:
    def __init__(self, max_epochs, callbacks=()):
        self.max_epochs = max_epochs
        self.callbacks = list(callbacks)
        self.global_step = 0
        self.current_epoch = 0
        self.should_stop = False

    def fit(self, module, datamodule):
        datamodule.setup("fit")
        loader = datamodule.train_dataloader()
        opt = module.configure_optimizers()
        module.train()
        for epoch in range(self.max_epochs):
            self.current_epoch = epoch
            for batch_idx, batch in enumerate(loader):
                for cb in self.callbacks:
                    cb.on_train_batch_start(self, module, batch, batch_idx)
                loss = module.training_step(batch, batch_idx)
                opt.zero_grad()
                loss.backward()
                opt.step()
                self.global_step += 1
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, module, loss, batch_idx)
                if self.should_stop:
                    return
