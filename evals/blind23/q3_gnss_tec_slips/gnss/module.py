import torch
import torch.nn as nn
import torch.nn.functional as F


class TecRegressor(nn.Module):
    """Lightning-style module: training_step / configure_optimizers."""

    def __init__(self, in_channels=5, channels=32, lr=1e-3):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(
            nn.Conv1d(in_channels, channels, 5, padding=2), nn.GELU(),
            nn.Conv1d(channels, channels, 5, padding=2, stride=2), nn.GELU(),
            nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(channels, 1),
        )

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.smooth_l1_loss(self(x), y, beta=0.05)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)
