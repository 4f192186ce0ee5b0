import torch.nn as nn


class LayoutNet(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(2, 8, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d((4, 4)),
        )
        self.head = nn.Linear(16 * 16, num_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))
