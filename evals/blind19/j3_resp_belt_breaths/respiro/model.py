import torch
from torch import nn


class BreathNet(nn.Module):
    def __init__(self, n_feat=4, n_summary=5, hidden=32, n_classes=4):
        super().__init__()
        self.breath_mlp = nn.Sequential(nn.Linear(n_feat, hidden), nn.ReLU(), nn.Linear(hidden, hidden))
        self.head = nn.Sequential(nn.Linear(hidden + n_summary, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))

    def forward(self, breaths, mask, summary):
        h = self.breath_mlp(breaths)
        m = mask.unsqueeze(-1).float()
        pooled = (h * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.head(torch.cat([pooled, summary], dim=-1))
