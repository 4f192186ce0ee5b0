import torch
from torch import nn


class CountNet(nn.Module):
    """Predicts the nucleus count and the mean object descriptors of a tile."""

    def __init__(self, width=8):
        super().__init__()
        self.features = nn.Sequential(
            nn.AvgPool2d(4),  # 128 -> 32: counting does not need full resolution
            nn.Conv2d(1, width, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(width, width * 2, 3, stride=2, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(4), nn.Flatten(),
        )
        self.head = nn.Linear(width * 2 * 16, 5)

    def forward(self, x):
        return self.head(self.features(x))
