import torch
from torch import nn


class RBF(nn.Module):
    def __init__(self, n=8, cutoff=4.0):
        super().__init__()
        self.register_buffer("centers", torch.linspace(0.0, cutoff, n))
        self.gamma = (n / cutoff) ** 2

    def forward(self, d):
        return torch.exp(-self.gamma * (d.unsqueeze(-1) - self.centers) ** 2)


class PocketGNN(nn.Module):
    def __init__(self, n_types, hidden=16, cutoff=4.0, layers=2):
        super().__init__()
        self.embed = nn.Embedding(n_types * 2, hidden)
        self.rbf = RBF(8, cutoff)
        self.msg = nn.ModuleList(nn.Linear(hidden + 8, hidden) for _ in range(layers))
        self.upd = nn.ModuleList(nn.Linear(2 * hidden, hidden) for _ in range(layers))
        self.n_types = n_types
        self.out = nn.Sequential(nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, z, is_ligand, edge_index, edge_dist, batch, num_graphs):
        h = self.embed(z + self.n_types * is_ligand.long())
        e = self.rbf(edge_dist)
        src, dst = edge_index
        for msg, upd in zip(self.msg, self.upd):
            m = torch.nn.functional.silu(msg(torch.cat([h[src], e], dim=-1)))
            agg = torch.zeros_like(h).index_add_(0, dst, m)
            h = h + torch.nn.functional.silu(upd(torch.cat([h, agg], dim=-1)))
        lig = is_ligand.float().unsqueeze(-1)
        pooled = torch.zeros(num_graphs, h.shape[1]).index_add_(0, batch, h * lig)
        count = torch.zeros(num_graphs).index_add_(0, batch, lig.squeeze(-1)).clamp(min=1.0)
        return self.out(pooled / count.unsqueeze(-1)).squeeze(-1)
