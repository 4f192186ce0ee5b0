import torch.nn as nn
import torch.nn.functional as F


class TinyPanopticFCN(nn.Module):
    """Semantic head at 1/4 resolution (logits are upsampled to the label resolution for
    evaluation); things are split into instances by connectivity (box-free baseline)."""

    stride = 4

    def __init__(self, n_classes=4, width=8):
        super().__init__()
        self.down = nn.AvgPool2d(2)
        self.stem = nn.Conv2d(3, width, 3, stride=2, padding=1)
        self.body = nn.Conv2d(width, width, 3, padding=1)
        self.cls = nn.Conv2d(width, n_classes, 1)

    def forward(self, x):
        h = F.relu(self.stem(self.down(x.float() / 255.0)))
        h = F.relu(self.body(h)) + h
        return self.cls(h)
