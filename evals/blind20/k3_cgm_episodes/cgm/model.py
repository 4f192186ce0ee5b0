import torch
from torch import nn


class GlucoseForecaster(nn.Module):
    def __init__(self, in_channels=5, width=8):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(in_channels, width, kernel_size=60, stride=60),   # hourly patches
            nn.ReLU(),
            nn.Conv1d(width, width, kernel_size=6, stride=6),           # 6-hour patches
            nn.ReLU(),
        )
        self.head = nn.Sequential(nn.Linear(width * 2, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        h = self.net(x)
        summary = [h.mean(-1), h[..., -1]]
        return self.head(torch.cat(summary, dim=-1)).squeeze(-1)
