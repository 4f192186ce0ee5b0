import torch
import torch.nn as nn


class DenseGCNLinkPredictor(nn.Module):
    def __init__(self, in_dim, hidden):
        super().__init__()
        self.lin1 = nn.Linear(in_dim, hidden)
        self.lin2 = nn.Linear(hidden, hidden)
        self.score = nn.Sequential(nn.Linear(3 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    @staticmethod
    def _normalise(adj, mask):
        a = adj + torch.diag_embed(mask.float())
        deg = a.sum(-1).clamp(min=1.0)
        inv = deg.rsqrt()
        return inv.unsqueeze(-1) * a * inv.unsqueeze(-2)

    def forward(self, feats, adj, mask):
        a = self._normalise(adj, mask)
        h = torch.relu(a @ self.lin1(feats))
        h = torch.relu(a @ self.lin2(h)) * mask.unsqueeze(-1)
        pooled = h.sum(1) / mask.sum(1, keepdim=True).clamp(min=1)
        return self.score(torch.cat([h[:, 0] * h[:, 1], pooled, h[:, 0] + h[:, 1]], -1)).squeeze(-1)
