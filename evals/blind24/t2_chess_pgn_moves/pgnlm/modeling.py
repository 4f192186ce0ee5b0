import torch
import torch.nn as nn
import torch.nn.functional as F


class GameResultClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim=32, hidden=48, num_labels=3):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.conv = nn.Conv1d(embed_dim, hidden, kernel_size=5, padding=2)
        self.head = nn.Linear(hidden + 1, num_labels)

    def forward(self, input_ids, attention_mask, elo_diff, labels=None):
        x = self.embed(input_ids).transpose(1, 2)
        h = F.relu(self.conv(x))
        m = attention_mask.unsqueeze(1).to(h.dtype)
        pooled = (h * m).sum(-1) / m.sum(-1).clamp_min(1.0)
        logits = self.head(torch.cat([pooled, elo_diff.unsqueeze(1)], dim=1))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}
