import torch
import torch.nn as nn


class StyleNet(nn.Module):
    """Per-frame key projection (1x1 conv over 2 x 88 keys), temporal convs, mean pooling."""

    def __init__(self, hidden, n_styles):
        super().__init__()
        self.proj = nn.Conv1d(2 * 88, hidden, 1)
        self.temporal = nn.Sequential(
            nn.ReLU(), nn.Conv1d(hidden, hidden, 5, stride=2, padding=2),
            nn.ReLU(), nn.Conv1d(hidden, hidden, 5, stride=2, padding=2), nn.ReLU())
        self.head = nn.Linear(hidden, n_styles)

    def forward(self, roll, onsets):
        x = self.proj(torch.cat([roll, onsets], dim=1))
        return self.head(self.temporal(x).mean(-1))
