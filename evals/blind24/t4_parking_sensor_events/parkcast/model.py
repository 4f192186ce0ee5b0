import torch
import torch.nn as nn


class NextHourForecaster(nn.Module):
    def __init__(self, n_hist=96, n_ctx=33, n_next=4, hidden=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(2 * n_hist + n_ctx, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, n_next),
        )

    def forward(self, history, heartbeats, context):
        x = torch.cat([history, heartbeats / 2.0, context], dim=1)
        return torch.sigmoid(self.net(x))
