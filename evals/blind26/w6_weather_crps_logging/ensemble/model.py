import math

import torch
from torch import nn


class EnsembleHead(nn.Module):
    """Predicts M ensemble members per grid point as mean + learned scaled perturbations."""

    def __init__(self, channels, members, width):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(channels, width, 3, padding=1), nn.GELU(),
                                  nn.Conv2d(width, width, 3, padding=1), nn.GELU())
        self.mean = nn.Conv2d(width, 1, 1)
        self.pert = nn.Conv2d(width, members, 1)

    def forward(self, x):
        h = self.body(x)
        p = self.pert(h)
        p = p - p.mean(1, keepdim=True)
        return 10.0 * self.mean(h) + p   # (B, M, H, W)


def fair_crps(ens, obs):
    """CRPS of the Gaussian fitted to the ensemble (mean, std over members), mean over cases and points.

    ens: (B, M, H, W), obs: (B, H, W). Closed form (Gneiting et al. 2005), cheap and differentiable.
    """
    mu = ens.mean(1)
    sigma = ens.std(1) + 1e-3
    z = (obs - mu) / sigma
    pdf = torch.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
    cdf = 0.5 * (1 + torch.erf(z / math.sqrt(2)))
    return (sigma * (z * (2 * cdf - 1) + 2 * pdf - 1 / math.sqrt(math.pi))).mean()
