import torch.nn as nn


class CallNet(nn.Module):
    """1-D CNN over MFCC frames (channels = coefficients)."""

    def __init__(self, n_mfcc, num_classes, width=96):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv1d(n_mfcc, width, 5, padding=2), nn.ReLU(),
            nn.Conv1d(width, width, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(width, width, 3, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1), nn.Flatten(),
        )
        self.fc = nn.Linear(width, num_classes)

    def forward(self, x):
        return self.fc(self.body(x))
