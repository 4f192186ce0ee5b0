import torch.nn as nn


class SSNet(nn.Module):
    """Per-residue secondary-structure tagger: two dilated 1-D convolutions."""

    def __init__(self, in_dim=10, hidden=16, n_classes=3):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv1d(in_dim, hidden, 5, padding=2), nn.ReLU(),
            nn.Conv1d(hidden, hidden, 5, padding=4, dilation=2), nn.ReLU(),
            nn.Conv1d(hidden, n_classes, 1),
        )

    def forward(self, x):            # x: (B, L, F)
        return self.body(x.transpose(1, 2)).transpose(1, 2)
