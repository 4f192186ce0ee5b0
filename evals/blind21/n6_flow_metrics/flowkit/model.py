import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyFlowNet(nn.Module):
    """Patchify both frames, two 3x3 convs, predict flow at 1/4 resolution (in 1/4-scale pixels)."""

    def __init__(self, width=16):
        super().__init__()
        self.patch = nn.Conv2d(6, width, kernel_size=4, stride=4)
        self.conv = nn.Conv2d(width, width, 3, padding=1)
        self.head = nn.Conv2d(width, 2, 3, padding=1)

    def forward(self, image1, image2):
        x = torch.cat([image1, image2], dim=1) * 2.0 - 1.0
        x = F.gelu(self.patch(x))
        x = F.gelu(self.conv(x)) + x
        return self.head(x)


def upsample_flow(flow, factor=4):
    """1/4-scale flow -> full resolution, in full-resolution pixels."""
    return F.interpolate(flow, scale_factor=factor, mode="bilinear", align_corners=False) * factor
