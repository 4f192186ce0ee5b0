import torch
from torch import nn


class BagOfPieces(nn.Module):
    """Mean- and max-pooled piece embeddings, then an MLP head."""

    def __init__(self, vocab_size, embed_dim, hidden_dim, n_classes):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.head = nn.Sequential(nn.Linear(2 * embed_dim, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, n_classes))

    def forward(self, ids, length):
        mask = (ids != 0).unsqueeze(-1).float()
        x = self.emb(ids)
        mean = (x * mask).sum(1) / length.unsqueeze(1).float()
        mx = (x * mask - (1 - mask) * 1e4).max(1).values
        return self.head(torch.cat([mean, mx], dim=1))
