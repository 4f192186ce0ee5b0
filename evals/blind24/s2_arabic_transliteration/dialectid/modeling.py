import torch
import torch.nn as nn
import torch.nn.functional as F


class NgramBagClassifier(nn.Module):
    def __init__(self, vocab_size, dim=32, n_labels=5):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.proj = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, n_labels)

    def forward(self, input_ids, attention_mask, labels=None):
        emb = self.embed(input_ids)
        m = attention_mask.unsqueeze(-1).to(emb.dtype)
        pooled = (emb * m).sum(1) / m.sum(1).clamp_min(1.0)
        logits = self.out(torch.tanh(self.proj(pooled)))
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = F.cross_entropy(logits, labels)
        return out
