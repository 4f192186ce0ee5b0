import torch
from torch import nn


class TinyEVFlowNet(nn.Module):
    """Pooled input, a stride-2 encoder to 1/4 resolution and a small residual flow head."""

    def __init__(self, num_bins, width=24):
        super().__init__()
        self.stem = nn.Sequential(nn.AvgPool2d(2), nn.Conv2d(num_bins, width, 3, 2, 1), nn.ReLU())
        self.block = nn.Sequential(nn.Conv2d(width, width, 3, padding=1), nn.ReLU(), nn.Conv2d(width, width, 3, padding=1))
        self.head = nn.Conv2d(width, 2, 3, padding=1)

    def forward(self, voxel):
        h = self.stem(voxel)
        h = h + self.block(h)
        return self.head(h)
