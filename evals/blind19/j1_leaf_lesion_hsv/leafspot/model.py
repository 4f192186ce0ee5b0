import torch
from torch import nn


class LesionNet(nn.Module):
    def __init__(self, in_ch=4, width=8, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_ch, width, 3, stride=2, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, 2 * width, 3, stride=2, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.cls = nn.Linear(2 * width, num_classes)
        self.frac = nn.Linear(2 * width, 1)

    def forward(self, x):
        z = torch.flatten(self.features(x), 1)
        return self.cls(z), self.frac(z).squeeze(1)
