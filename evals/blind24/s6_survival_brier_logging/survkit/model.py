import torch
import torch.nn as nn
import torch.nn.functional as F


class DiscreteHazardNet(nn.Module):
    """Logistic hazard per time bin (Nnet-survival style)."""

    def __init__(self, n_features, n_bins, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU(), nn.Linear(hidden, n_bins))

    def forward(self, x):
        return self.net(x)


def hazard_nll(logits, bins, events):
    """-log L: survived every bin before `bin`; in `bin` the event happened (or censoring)."""
    n_bins = logits.shape[1]
    idx = torch.arange(n_bins)
    before = (idx[None, :] < bins[:, None]).to(logits.dtype)
    at = (idx[None, :] == bins[:, None]).to(logits.dtype)
    log_surv = F.logsigmoid(-logits)
    log_haz = F.logsigmoid(logits)
    ev = events.to(logits.dtype)[:, None]
    ll = (before * log_surv).sum(1) + (at * (ev * log_haz + (1 - ev) * log_surv)).sum(1)
    return -ll.mean()


def survival_curves(logits):
    """S(t) at the end of each bin."""
    return torch.cumprod(torch.sigmoid(-logits), dim=1)
