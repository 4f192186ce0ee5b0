import torch
import torch.nn as nn
import torch.nn.functional as F


class QueryCostModel(nn.Module):
    """fastText-style: token embeddings, masked mean + max pooling, small MLP head."""

    def __init__(self, vocab_size, n_classes, dim=32, pad_id=0):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=pad_id)
        self.head = nn.Sequential(nn.Linear(2 * dim, dim), nn.GELU(), nn.Linear(dim, n_classes))

    def forward(self, input_ids, attention_mask, labels=None):
        h = self.embed(input_ids)
        m = attention_mask.unsqueeze(-1).to(h.dtype)
        mean = (h * m).sum(1) / m.sum(1).clamp_min(1.0)
        mx = h.masked_fill(m == 0, -1e4).amax(1)
        logits = self.head(torch.cat([mean, mx], 1))
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = F.cross_entropy(logits, labels)
        return out
