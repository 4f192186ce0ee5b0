import torch
from torch import nn


class SkyCueNet(nn.Module):
    """Weather classifier over sky cues, with an auxiliary per-column horizon head."""

    def __init__(self, num_classes, width):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(inplace=True),
        )
        self.cls = nn.Linear(32, num_classes)
        self.horizon = nn.Linear(32 * 8, width)

    def forward(self, x):
        f = self.body(x)                      # (B, 32, H/4, W/4)
        logits = self.cls(f.mean(dim=(2, 3)))
        col = nn.functional.adaptive_avg_pool2d(f, (1, 8)).flatten(1)
        return logits, torch.sigmoid(self.horizon(col))
