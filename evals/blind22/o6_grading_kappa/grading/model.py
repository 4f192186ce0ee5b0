import torch
import torch.nn as nn
import torch.nn.functional as F


class CoralMLP(nn.Module):
    """CORAL (Cao et al. 2020): one shared score plus K-1 ordered thresholds."""

    def __init__(self, n_features, hidden, n_grades):
        super().__init__()
        layers, d = [], n_features
        for h in hidden:
            layers += [nn.Linear(d, h), nn.ReLU()]
            d = h
        self.body = nn.Sequential(*layers)
        self.score = nn.Linear(d, 1, bias=False)
        self.thresholds = nn.Parameter(torch.arange(n_grades - 1, dtype=torch.float32) * -0.5)

    def forward(self, x):
        return self.score(self.body(x)) + self.thresholds


def coral_loss(logits, y):
    levels = (y[:, None] > torch.arange(logits.shape[1], device=y.device)[None, :]).float()
    return F.binary_cross_entropy_with_logits(logits, levels)


def coral_predict(logits):
    return (torch.sigmoid(logits) > 0.5).sum(1)
