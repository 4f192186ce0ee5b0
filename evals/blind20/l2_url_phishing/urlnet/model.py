import torch
import torch.nn as nn


class UrlClassifier(nn.Module):
    """Log-scaled hashed n-gram counts (a linear 'fastText-like' projection) + URL statistics."""

    def __init__(self, num_buckets, num_dense, embed_dim=64, hidden=64):
        super().__init__()
        self.ngram_proj = nn.Linear(num_buckets, embed_dim)
        self.dense_norm = nn.LayerNorm(num_dense)
        self.mlp = nn.Sequential(
            nn.Linear(embed_dim + num_dense, hidden),
            nn.GELU(),
            nn.Linear(hidden, 2),
        )

    def forward(self, ngram_counts, dense):
        pooled = self.ngram_proj(torch.log1p(ngram_counts))
        return self.mlp(torch.cat([pooled, self.dense_norm(dense)], dim=1))
