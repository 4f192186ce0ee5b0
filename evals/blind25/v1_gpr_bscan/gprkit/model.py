import torch.nn as nn


class BScanNet(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 6, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(6, 12, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.AdaptiveAvgPool2d((4, 2)),
        )
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(12 * 8, n_classes))

    def forward(self, x):
        return self.head(self.features(x))
