import torch.nn as nn


class ChirpNet(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(1, width, 16, stride=4), nn.ReLU(), nn.MaxPool1d(4),
            nn.Conv1d(width, 2 * width, 8, stride=2), nn.ReLU(), nn.AdaptiveMaxPool1d(8),
            nn.Flatten(), nn.Linear(16 * width, 2),
        )

    def forward(self, x):
        return self.net(x)
