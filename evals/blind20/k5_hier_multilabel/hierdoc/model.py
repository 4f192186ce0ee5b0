import torch
from torch import nn


class HierarchicalBagClassifier(nn.Module):
    """Token bag -> sentence vectors -> document vector -> one logit per taxonomy node."""

    def __init__(self, vocab_size, embed_dim, num_labels):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.sentence_proj = nn.Linear(embed_dim, embed_dim)
        self.out = nn.Linear(embed_dim, num_labels)

    def forward(self, input_ids, token_mask, sentence_mask):
        tok = self.embed(input_ids) * token_mask.unsqueeze(-1)
        sent = tok.sum(2) / token_mask.sum(2, keepdim=True).clamp(min=1)
        sent = torch.tanh(self.sentence_proj(sent)) * sentence_mask.unsqueeze(-1)
        doc = sent.sum(1) / sentence_mask.sum(1, keepdim=True).clamp(min=1)
        return self.out(doc)
