import torch
import torch.nn as nn
import torch.nn.functional as F

from .data import NUM_SCOPE_BUCKETS


class CommitClassifier(nn.Module):
    """Mean-pooled hashed n-gram embeddings (fastText-like) plus header features."""

    def __init__(self, vocab_size, num_labels, embed_dim=32, hidden_dim=64):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab_size, embed_dim, mode="mean", padding_idx=0)
        self.scope_embed = nn.Embedding(NUM_SCOPE_BUCKETS, 8)
        self.mlp = nn.Sequential(nn.Linear(embed_dim + 8 + 2, hidden_dim), nn.ReLU(), nn.Linear(hidden_dim, num_labels))

    def forward(self, input_ids, attention_mask, scope_id, breaking, num_issues, labels=None):
        pooled = self.embed(input_ids)  # padding_idx entries are left out of each bag's mean
        extra = torch.stack([breaking, torch.log1p(num_issues)], dim=1)
        logits = self.mlp(torch.cat([pooled, self.scope_embed(scope_id), extra], dim=1))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}
