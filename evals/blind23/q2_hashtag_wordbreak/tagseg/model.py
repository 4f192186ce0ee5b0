import torch
import torch.nn as nn


class HashtagTopicClassifier(nn.Module):
    def __init__(self, vocab_size, num_topics, embed_dim=64, hidden_dim=128):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(embed_dim, hidden_dim), nn.GELU(), nn.Linear(hidden_dim, num_topics))

    def forward(self, input_ids, attention_mask):
        m = attention_mask.unsqueeze(-1).float()
        pooled = (self.embed(input_ids) * m).sum(1) / m.sum(1).clamp(min=1.0)
        return self.mlp(pooled)
