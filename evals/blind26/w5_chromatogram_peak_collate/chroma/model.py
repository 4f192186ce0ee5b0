import torch
from torch import nn


class TracePeakNet(nn.Module):
    """Strided 1D CNN over the trace + DeepSets encoder over the peak table."""

    def __init__(self, n_classes):
        super().__init__()
        self.trace = nn.Sequential(
            nn.AvgPool1d(4), nn.Conv1d(2, 8, 9, stride=2, padding=4), nn.ReLU(),
            nn.Conv1d(8, 16, 9, stride=4, padding=4), nn.ReLU(),
            nn.AdaptiveAvgPool1d(24), nn.Flatten())
        self.phi = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 32))
        self.head = nn.Sequential(nn.Linear(16 * 24 + 32, 64), nn.ReLU(), nn.Linear(64, n_classes))

    def forward(self, trace, peaks, mask):
        scaled = peaks / torch.tensor([10.0, 100.0, 0.1, 10.0])
        p = (self.phi(scaled) * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
        return self.head(torch.cat([self.trace(trace), p], dim=1))
