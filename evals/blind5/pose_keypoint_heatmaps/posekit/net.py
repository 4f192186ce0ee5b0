import torch.nn as nn


class TinyPoseNet(nn.Module):
    """Stride-2 stem, two residual-free conv blocks, 1x1 head to one heatmap per joint."""

    def __init__(self, num_joints, width=16):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(1, width, 3, stride=2, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True))
        self.body = nn.Sequential(
            nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, width, 3, padding=2, dilation=2), nn.BatchNorm2d(width), nn.ReLU(inplace=True))
        self.head = nn.Conv2d(width, num_joints, 1)

    def forward(self, x):
        return self.head(self.body(self.stem(x)))
