import torch
import torch.nn as nn
import torch.nn.functional as F


class TuneCNNForSequenceClassification(nn.Module):
    def __init__(self, vocab_size, num_labels, embed_dim=32, channels=48, kernel_size=5,
                 dropout=0.1, pad_token_id=0):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=pad_token_id)
        self.conv = nn.Conv1d(embed_dim, channels, kernel_size, padding=kernel_size // 2)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(channels, num_labels)

    def forward(self, input_ids, attention_mask, labels=None):
        h = self.embed(input_ids).transpose(1, 2)              # B, E, T
        h = F.gelu(self.conv(h))
        h = h.masked_fill(attention_mask[:, None, :] == 0, -1e4)
        pooled = self.dropout(h.max(dim=2).values)
        logits = self.classifier(pooled)
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = F.cross_entropy(logits, labels)
        return out
