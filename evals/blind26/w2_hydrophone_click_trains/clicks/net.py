import torch
from torch import nn


class ClickNet(nn.Module):
    def __init__(self, env_len, hist_len, n_classes=4):
        super().__init__()
        self.env = nn.Sequential(nn.Conv1d(1, 12, 5, padding=2), nn.GELU(), nn.AdaptiveMaxPool1d(16), nn.Flatten())
        self.mlp = nn.Sequential(nn.Linear(12 * 16 + hist_len + 2, 64), nn.GELU(), nn.Dropout(0.1), nn.Linear(64, n_classes))

    def forward(self, env, hist, scalars):
        e = self.env(torch.log1p(env * 100.0).unsqueeze(1))
        s = torch.stack([scalars[:, 0] / 20.0, torch.log10(scalars[:, 1] + 1e-9)], dim=1)
        return self.mlp(torch.cat([e, torch.log1p(hist), s], dim=1))
