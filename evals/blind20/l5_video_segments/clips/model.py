import torch
import torch.nn as nn


class TinyTSN(nn.Module):
    """Frame-wise 2D CNN, masked average over the sampled segments (consensus), linear head."""

    def __init__(self, num_classes, width=16):
        super().__init__()
        self.frame_net = nn.Sequential(
            nn.Conv2d(3, width, 4, stride=4),
            nn.ReLU(inplace=True),
            nn.Conv2d(width, 2 * width, 3, stride=2, padding=1),
            nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(2 * width, num_classes)

    def forward(self, clips, frame_mask):
        b, c, t, h, w = clips.shape
        frames = clips.permute(0, 2, 1, 3, 4).reshape(b * t, c, h, w)
        feats = self.frame_net(frames).flatten(1).view(b, t, -1)
        weights = frame_mask / frame_mask.sum(1, keepdim=True).clamp_min(1.0)
        return self.head((feats * weights.unsqueeze(-1)).sum(1))
