import torch.nn as nn


def conv_block(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride=stride, padding=1), nn.ReLU(inplace=True))


class TextureNet(nn.Module):
    """Three strided conv blocks and global pooling over the (2, pings, ground bins) swath."""

    def __init__(self, n_classes, width=8):
        super().__init__()
        self.features = nn.Sequential(
            conv_block(2, width, 2),
            conv_block(width, 2 * width, 2),
            conv_block(2 * width, 2 * width, 2),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(2 * width, n_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))
