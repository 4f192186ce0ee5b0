import torch
import torch.nn as nn


class DwellAttentionRecommender(nn.Module):
    """User vector = dwell-weighted, attention-pooled history embeddings (+ hour of day); dot-product scores."""

    def __init__(self, n_items, dim):
        super().__init__()
        self.items = nn.Embedding(n_items + 1, dim, padding_idx=0)
        self.hour = nn.Embedding(24, dim)
        self.attn = nn.Linear(dim, 1)
        nn.init.normal_(self.items.weight, std=0.1)
        nn.init.normal_(self.hour.weight, std=0.1)
        with torch.no_grad():
            self.items.weight[0].zero_()

    def forward(self, batch):
        h = self.items(batch.history)
        logits = self.attn(h).squeeze(-1) + torch.log(batch.history_weight + 1e-6)
        logits = logits.masked_fill(batch.history == 0, -1e4)
        user = (torch.softmax(logits, dim=1).unsqueeze(-1) * h).sum(1) + self.hour(batch.hour)
        return (self.items(batch.candidates) * user.unsqueeze(1)).sum(-1)
