import torch
import torch.nn as nn


class BagOfPiecesClassifier(nn.Module):
    """fastText-style: mean of piece embeddings over the unpadded positions, then an MLP."""

    def __init__(self, vocab_size, embed_dim, hidden_dim, num_labels, pad_id=0):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embed_dim, padding_idx=pad_id)
        self.mlp = nn.Sequential(
            nn.Linear(embed_dim, hidden_dim), nn.ReLU(), nn.Dropout(0.1), nn.Linear(hidden_dim, num_labels))

    def forward(self, input_ids, attention_mask):
        mask = attention_mask.unsqueeze(-1).to(torch.float32)
        summed = (self.embed(input_ids) * mask).sum(dim=1)
        pooled = summed / mask.sum(dim=1).clamp_min(1.0)
        return self.mlp(pooled)
