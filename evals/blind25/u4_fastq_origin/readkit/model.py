import torch
import torch.nn as nn


class OriginClassifier(nn.Module):
    def __init__(self, n_kmers, n_summary, n_classes, hidden=64, dropout=0.1):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_kmers + n_summary, hidden), nn.ReLU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, n_classes),
        )

    def forward(self, kmers, summary):
        return self.net(torch.cat([kmers * 16.0, summary], 1))
