import torch
from torch import nn


class CycleTimeRegressor(nn.Module):
    def __init__(self, in_dim=10, channels=48):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(in_dim, channels, 3, padding=1), nn.SiLU(),
                                 nn.Conv1d(channels, channels, 3, padding=1), nn.SiLU())
        self.out = nn.Sequential(nn.Linear(channels + 1, 32), nn.SiLU(), nn.Linear(32, 1))

    def forward(self, feats, n):
        h = self.net(feats.transpose(1, 2))
        mask = (torch.arange(feats.shape[1]) < n.unsqueeze(1)).unsqueeze(1).float()
        pooled = (h * mask).sum(-1)
        return self.out(torch.cat([pooled / 50.0, n.unsqueeze(1).float() / 50.0], 1)).squeeze(1) + 5.0
