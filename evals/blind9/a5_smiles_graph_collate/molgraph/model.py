import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class BiasedAttentionLayer(nn.Module):
    """Pre-LN self-attention with a learnt per-head bias for every (clipped) shortest-path distance."""

    def __init__(self, hidden, heads, num_distances, dropout):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)
        self.dist_bias = nn.Embedding(num_distances, heads)
        self.bond_bias = nn.Embedding(4, heads)
        self.ln2 = nn.LayerNorm(hidden)
        self.ffn = nn.Sequential(nn.Linear(hidden, 2 * hidden), nn.GELU(), nn.Linear(2 * hidden, hidden))
        self.dropout = nn.Dropout(dropout)

    def forward(self, h, dist, adj, mask):
        B, N, D = h.shape
        q, k, v = self.qkv(self.ln1(h)).view(B, N, 3, self.heads, D // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(D // self.heads)
        scores = scores + (self.dist_bias(dist) + self.bond_bias(adj)).permute(0, 3, 1, 2)
        scores = scores.masked_fill(~mask[:, None, None, :], float("-inf"))
        att = self.dropout(scores.softmax(-1))
        h = h + self.out((att @ v).transpose(1, 2).reshape(B, N, D))
        return h + self.ffn(self.ln2(h))


class Graphormerish(nn.Module):
    def __init__(self, in_features, hidden, heads, layers, max_distance, dropout):
        super().__init__()
        self.embed = nn.Linear(in_features, hidden)
        self.layers = nn.ModuleList(
            BiasedAttentionLayer(hidden, heads, max_distance + 2, dropout) for _ in range(layers))
        self.head = nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, 1))

    def forward(self, x, dist, adj, mask):
        h = self.embed(x)
        for layer in self.layers:
            h = layer(h, dist, adj, mask)
        m = mask.unsqueeze(-1).float()
        return self.head((h * m).sum(1) / m.sum(1)).squeeze(-1)
