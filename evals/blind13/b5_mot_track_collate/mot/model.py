"""A Lightning-style module (no Lightning): constant-velocity residual motion model over track tensors."""
import torch
import torch.nn as nn


class MotionModule(nn.Module):
    def __init__(self, hidden=32, lr=2e-3):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(nn.Linear(4 * 3 + 2, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU(), nn.Linear(hidden, 4))

    def forward(self, hist, vis, age):
        return self.net(torch.cat([hist, vis, age], dim=-1))

    def training_step(self, batch, batch_idx):
        b = batch.boxes
        ok = batch.visible[:, 2:] & batch.visible[:, 1:-1] & batch.visible[:, :-2]
        hist = torch.cat([b[:, :-2], b[:, 1:-1], b[:, 1:-1] - b[:, :-2]], dim=-1)
        feats = torch.stack([batch.visibility[:, 1:-1], batch.age[:, 1:-1].float() / 24.0], dim=-1)
        pred = b[:, 1:-1] + (b[:, 1:-1] - b[:, :-2]) + 0.1 * self(hist, feats[..., :1], feats[..., 1:])
        err = (pred - b[:, 2:]).abs().sum(-1)
        mask = ok.float()
        return (err * mask).sum() / mask.sum().clamp(min=1.0)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.lr, weight_decay=1e-4)
