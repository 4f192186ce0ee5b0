import torch
from torch import nn


class MeanPoolClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim, num_labels=2):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(embed_dim, hidden_dim), nn.Tanh(), nn.Linear(hidden_dim, num_labels))

    def forward(self, input_ids, attention_mask):
        emb = self.embed(input_ids)
        mask = attention_mask.unsqueeze(-1).to(emb.dtype)
        pooled = (emb * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.mlp(pooled)
