import torch
import torch.nn as nn


class GaitNet(nn.Module):
    def __init__(self, gait_dim, num_classes=3, width=16):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(2, width, 8, stride=4, padding=2),
            nn.ReLU(),
            nn.Conv1d(width, width, 5, stride=2, padding=2),
            nn.ReLU(),
            nn.AdaptiveAvgPool1d(1),
        )
        self.gait = nn.Sequential(nn.Linear(gait_dim, 16), nn.ReLU())
        self.head = nn.Linear(width + 16, num_classes)

    def forward(self, trace, gait):
        return self.head(torch.cat([self.conv(trace).flatten(1), self.gait(gait)], dim=1))
