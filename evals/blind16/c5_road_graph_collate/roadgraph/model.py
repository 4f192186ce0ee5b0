import torch
import torch.nn as nn


class DenseGCN(nn.Module):
    """Two GCN layers on the dense A_hat, plus an edge-attribute message pooled by scatter-add."""

    def __init__(self, in_dim, hidden):
        super().__init__()
        self.lin1 = nn.Linear(in_dim, hidden)
        self.lin2 = nn.Linear(hidden, hidden)
        self.edge = nn.Linear(2, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, batch):
        x, adj, mask = batch["x"], batch["adj"], batch["mask"]
        B, N, _ = x.shape
        h = torch.relu(adj @ self.lin1(x))
        msg = self.edge(batch["edge_attr"]) * batch["edge_weight"].unsqueeze(-1)
        flat = torch.zeros(B * N, msg.shape[1]).index_add(0, self._flat_dst(batch, N), msg)
        h = torch.relu(adj @ self.lin2(h) + flat.view(B, N, -1))
        return self.out(h).squeeze(-1) * mask

    @staticmethod
    def _flat_dst(batch, N):
        # edge_index uses packed node ids (offset by the batch position); map to the padded layout
        counts = batch["mask"].sum(1)
        starts = torch.cumsum(counts, 0) - counts
        dst = batch["edge_index"][1].contiguous()
        graph = torch.searchsorted(starts, dst, right=True) - 1
        return graph * N + (dst - starts[graph])
