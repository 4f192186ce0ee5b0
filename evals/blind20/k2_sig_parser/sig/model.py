import torch
from torch import nn


class SigSlotModel(nn.Module):
    """Bag-of-embeddings encoder with heads for route, frequency class and PRN."""

    def __init__(self, vocab_size, embed_dim, hidden_dim, num_routes=10, num_freqs=6):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.encoder = nn.Sequential(nn.Linear(embed_dim + 3, hidden_dim), nn.GELU())
        self.route_head = nn.Linear(hidden_dim, num_routes)
        self.freq_head = nn.Linear(hidden_dim, num_freqs)
        self.prn_head = nn.Linear(hidden_dim, 1)

    def forward(self, input_ids, attention_mask, slot_values):
        mask = attention_mask.unsqueeze(-1).float()
        pooled = (self.embed(input_ids) * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        h = self.encoder(torch.cat([pooled, torch.log1p(slot_values)], dim=-1))
        return self.route_head(h), self.freq_head(h), self.prn_head(h).squeeze(-1)
