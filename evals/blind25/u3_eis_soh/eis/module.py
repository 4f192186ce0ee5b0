import torch
import torch.nn as nn
import torch.nn.functional as F


class SOHRegressor(nn.Module):
    """LightningModule-shaped: training_step / validation_step / configure_optimizers."""

    def __init__(self, n_scalars=8, width=16, lr=2e-3, weight_decay=1e-4):
        super().__init__()
        self.hparams = {"lr": lr, "weight_decay": weight_decay}
        self.curve_net = nn.Sequential(
            nn.Conv1d(3, width, 5, stride=2, padding=2), nn.GELU(),
            nn.Conv1d(width, width, 5, stride=2, padding=2), nn.GELU(),
            nn.AdaptiveAvgPool1d(4), nn.Flatten(),
        )
        self.scalar_net = nn.Sequential(nn.Linear(n_scalars, width), nn.GELU())
        self.head = nn.Sequential(nn.Linear(5 * width, width), nn.GELU(), nn.Linear(width, 1))
        self.logged = {}

    def log(self, name, value):
        self.logged.setdefault(name, []).append(float(value))

    def forward(self, curve, scalars):
        h = torch.cat([self.curve_net(curve), self.scalar_net(scalars)], 1)
        return self.head(h).squeeze(1)

    def training_step(self, batch, batch_idx):
        curve, scalars, soh = batch
        pred = self(curve, scalars)
        loss = F.smooth_l1_loss(pred, soh, beta=0.05)
        self.log("train_mae", (pred.detach() - soh).abs().mean())
        return loss

    def validation_step(self, batch, batch_idx):
        curve, scalars, soh = batch
        return (self(curve, scalars) - soh).abs().sum(), len(soh)

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters(), lr=self.hparams["lr"], weight_decay=self.hparams["weight_decay"])
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.7)
        return [opt], [sched]
