import torch.nn as nn


class LesionNet(nn.Module):
    def __init__(self, n_classes=3, width=8):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, 2 * width, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4),
        )
        self.head = nn.Linear(2 * width * 16, n_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))
