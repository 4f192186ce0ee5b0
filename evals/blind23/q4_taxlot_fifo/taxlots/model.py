import torch
import torch.nn as nn


class TradeStyleTCN(nn.Module):
    """Dilated temporal convolutions over the trade window, mean+max pooled."""

    def __init__(self, num_features, hidden, num_classes=3):
        super().__init__()
        self.norm = nn.LayerNorm(num_features)
        self.convs = nn.Sequential(
            nn.Conv1d(num_features, hidden, 3, padding=1), nn.ReLU(),
            nn.Conv1d(hidden, hidden, 3, padding=2, dilation=2), nn.ReLU(),
        )
        self.head = nn.Linear(2 * hidden, num_classes)

    def forward(self, x):
        h = self.convs(self.norm(x).transpose(1, 2))
        return self.head(torch.cat([h.mean(-1), h.amax(-1)], dim=-1))
