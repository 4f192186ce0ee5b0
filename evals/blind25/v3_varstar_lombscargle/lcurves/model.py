import torch
import torch.nn as nn
import torch.nn.functional as F

from . import lit


class VariableStarClassifier(lit.LightningModule):
    def __init__(self, n_features, n_classes, hidden=64, dropout=0.1, lr=2e-3, weight_decay=0.0,
                 total_steps=100):
        super().__init__()
        self.save = dict(lr=lr, weight_decay=weight_decay, total_steps=total_steps)
        self.norm = nn.LayerNorm(n_features)
        self.net = nn.Sequential(
            nn.Linear(n_features, hidden), nn.GELU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.GELU(),
            nn.Linear(hidden, n_classes),
        )

    def forward(self, x):
        return self.net(self.norm(x))

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        loss = F.cross_entropy(logits, y)
        acc = (logits.argmax(dim=1) == y).float().mean()
        self.log("train_loss", loss, prog_bar=True)
        self.log("train_acc", acc)
        return loss

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters(), lr=self.save["lr"], weight_decay=self.save["weight_decay"])
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=self.save["lr"],
                                                    total_steps=self.save["total_steps"])
        return {"optimizer": opt, "lr_scheduler": sched}
