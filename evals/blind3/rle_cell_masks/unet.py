import torch
from torch import nn
import torch.nn.functional as F


def block(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride=stride, padding=1), nn.ReLU(inplace=True))


class TinyUNet(nn.Module):
    """Two-level encoder/decoder at 1/2 and 1/4 resolution; logits upsampled to the input size."""

    def __init__(self, c, num_classes):
        super().__init__()
        self.enc1 = block(3, c, stride=2)
        self.enc2 = block(c, 2 * c, stride=2)
        self.dec1 = block(3 * c, c)
        self.head = nn.Conv2d(c, num_classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        d1 = self.dec1(torch.cat([F.interpolate(e2, scale_factor=2.0, mode="nearest"), e1], 1))
        return F.interpolate(self.head(d1), size=x.shape[-2:], mode="bilinear", align_corners=False)
