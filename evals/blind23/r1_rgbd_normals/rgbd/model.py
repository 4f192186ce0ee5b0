import torch
from torch import nn
from torch.nn import functional as F


def conv_bn(cin, cout, kernel=3, stride=1, padding=1):
    return nn.Sequential(nn.Conv2d(cin, cout, kernel, stride, padding, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class TinySegNet(nn.Module):
    """Patchify stem (4x4, stride 4), one more downsampling stage, skip fusion at 1/4 and
    nearest-neighbour logits upsampling."""

    def __init__(self, in_channels=7, width=16, num_classes=3):
        super().__init__()
        self.stem = conv_bn(in_channels, width, kernel=4, stride=4, padding=0)
        self.down = conv_bn(width, 2 * width, stride=2)
        self.head = nn.Conv2d(3 * width, num_classes, 1)

    def forward(self, x):
        s1 = self.stem(x)
        s2 = self.down(s1)
        up = F.interpolate(s2, size=s1.shape[-2:], mode="nearest")
        logits = self.head(torch.cat([s1, up], dim=1))
        return F.interpolate(logits, size=x.shape[-2:], mode="nearest")
