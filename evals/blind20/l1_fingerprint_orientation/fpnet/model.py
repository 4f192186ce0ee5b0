import torch.nn as nn


class OrientationNet(nn.Module):
    """Small CNN over the block orientation field (5 x H/b x W/b)."""

    def __init__(self, in_channels=5, width=32, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, width, 3, padding=1),
            nn.BatchNorm2d(width),
            nn.ReLU(inplace=True),
            nn.Conv2d(width, width, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))
