import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence


class VisitGRU(nn.Module):
    """Visit vector = mean of code, parent-group and code-type embeddings (EmbeddingBag over the
    unmasked codes of each visit) + a projection of the log gap; a GRU over the visits."""

    def __init__(self, vocab_size, num_types, num_parents, embed_dim, hidden_dim):
        super().__init__()
        self.code_bag = nn.EmbeddingBag(vocab_size, embed_dim, mode="mean")
        self.parent_bag = nn.EmbeddingBag(num_parents, embed_dim, mode="mean")
        self.type_bag = nn.EmbeddingBag(num_types, embed_dim, mode="mean")
        self.gap_proj = nn.Linear(1, embed_dim)
        self.gru = nn.GRU(embed_dim, hidden_dim, batch_first=True)
        self.head = nn.Linear(hidden_dim, 1)

    def forward(self, codes, code_types, parents, code_mask, gaps, lengths):
        B, V, _ = codes.shape
        counts = code_mask.sum(-1).reshape(-1)
        offsets = torch.zeros_like(counts)
        offsets[1:] = counts.cumsum(0)[:-1]
        visit = (self.code_bag(codes[code_mask], offsets)
                 + self.parent_bag(parents[code_mask], offsets)
                 + self.type_bag(code_types[code_mask], offsets)).view(B, V, -1)
        visit = visit + self.gap_proj(gaps.unsqueeze(-1))
        packed = pack_padded_sequence(visit, lengths, batch_first=True, enforce_sorted=True)
        _, h = self.gru(packed)
        return self.head(h[-1]).squeeze(-1)
