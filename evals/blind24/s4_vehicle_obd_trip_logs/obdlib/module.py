import torch
import torch.nn as nn
import torch.nn.functional as F

from .features import N_FEATURES


class EcoScoreRegressor(nn.Module):
    """LightningModule-shaped: training_step / configure_optimizers."""

    def __init__(self, hidden=32, lr=1e-3):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(nn.Linear(N_FEATURES, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.mse_loss(self(x), y)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


class Trainer:
    def __init__(self, max_epochs, callbacks=()):
        self.max_epochs, self.callbacks = max_epochs, list(callbacks)
        self.should_stop = False

    def fit(self, module, datamodule):
        datamodule.setup()
        opt = module.configure_optimizers()
        loader = datamodule.train_dataloader()
        for epoch in range(self.max_epochs):
            for i, batch in enumerate(loader):
                for cb in self.callbacks:
                    cb.on_train_batch_start(self, batch)
                loss = module.training_step(batch, i)
                opt.zero_grad()
                loss.backward()
                opt.step()
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, loss)
                if self.should_stop:
                    return
            for cb in self.callbacks:
                cb.on_train_epoch_end(self, epoch)
