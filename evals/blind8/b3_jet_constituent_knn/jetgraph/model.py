import torch
import torch.nn as nn


class NeighbourhoodTagger(nn.Module):
    """EdgeConv-lite: each constituent sees the mean of its k neighbours' features (relative to
    its own) and the min / mean neighbour distance; per-node MLP, masked mean pool, classifier."""

    def __init__(self, in_dim, width, n_classes):
        super().__init__()
        self.node = nn.Sequential(nn.Linear(2 * in_dim + 2, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(width + 1, width), nn.ReLU(), nn.Linear(width, n_classes))

    def forward(self, x, nbr, edge_dr, mask):
        b, n, k = nbr.shape
        flat = x.reshape(b * n, -1)
        offset = (torch.arange(b) * n).view(b, 1, 1)
        xj = flat[(nbr + offset).reshape(-1)].view(b, n, k, -1).mean(2)
        d = torch.stack([edge_dr[..., 0], edge_dr.mean(-1)], dim=-1)
        h = self.node(torch.cat([x, xj - x, d], dim=-1))
        m = mask.unsqueeze(-1).float()
        count = m.sum(1)
        pooled = (h * m).sum(1) / count
        return self.head(torch.cat([pooled, count / 32.0], dim=1))
