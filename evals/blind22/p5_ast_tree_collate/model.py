import torch
from torch import nn


class TreeAttentionEncoder(nn.Module):
    """Node type + depth embeddings, one ancestor-masked attention layer, masked mean pooling."""

    def __init__(self, n_types, d_model, n_classes, max_depth=64):
        super().__init__()
        self.types = nn.Embedding(n_types, d_model, padding_idx=0)
        self.depth = nn.Embedding(max_depth, d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)
        self.cls = nn.Linear(d_model, n_classes)
        self.scale = d_model ** -0.5

    def forward(self, batch):
        h = self.types(batch["node_types"]) + self.depth(batch["depths"].clamp(max=self.depth.num_embeddings - 1))
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        scores = torch.einsum("bid,bjd->bij", q, k) * self.scale
        scores = scores.masked_fill(~batch["ancestor_mask"], float("-inf"))
        # padded rows have no ancestors: give them a harmless uniform row
        scores = scores.masked_fill(~batch["node_mask"][:, :, None], 0.0)
        h = h + self.out(torch.softmax(scores, dim=-1) @ v)
        m = batch["node_mask"].unsqueeze(-1).float()
        return self.cls((h * m).sum(1) / m.sum(1))
