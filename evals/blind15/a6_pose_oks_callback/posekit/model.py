import torch.nn as nn


class TinyHeatmapNet(nn.Module):
    """Two stride-2 convs and a 1x1 head: 17 heatmaps at 1/4 resolution."""

    def __init__(self, n_joints=17, width=16):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, width, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(width, 2 * width, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(2 * width, 2 * width, 3, padding=1), nn.ReLU(inplace=True))
        self.head = nn.Conv2d(2 * width, n_joints, 1)

    def forward(self, x):
        return self.head(self.body(x))
