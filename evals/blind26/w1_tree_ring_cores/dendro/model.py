import torch
from torch import nn


class RingNet(nn.Module):
    def __init__(self, profile_len, max_rings, n_classes):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(1, 16, 7, padding=3), nn.ReLU(), nn.MaxPool1d(4),
            nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1))
        self.rings = nn.Sequential(nn.Linear(max_rings + 1, 32), nn.ReLU())
        self.head = nn.Linear(64, n_classes)

    def forward(self, profile, widths, n_rings):
        a = self.conv(profile.unsqueeze(1)).flatten(1)
        w = torch.cat([widths / 16.0, n_rings.float().unsqueeze(1) / 48.0], dim=1)
        return self.head(torch.cat([a, self.rings(w)], dim=1))
