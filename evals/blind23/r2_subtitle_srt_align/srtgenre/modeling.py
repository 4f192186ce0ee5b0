import torch
from torch import nn


class BagOfWordsGenreClassifier(nn.Module):
    def __init__(self, vocab_size, embedding_dim, hidden_dim, num_features, num_labels, pad_token_id=0):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_token_id)
        self.mlp = nn.Sequential(nn.Linear(embedding_dim + num_features, hidden_dim), nn.GELU(),
                                 nn.Linear(hidden_dim, num_labels))
        self.loss_fct = nn.CrossEntropyLoss()

    def forward(self, input_ids, attention_mask, features, labels=None):
        mask = attention_mask.unsqueeze(-1).float()
        pooled = (self.embed(input_ids) * mask).sum(1) / mask.sum(1).clamp_min(1.0)
        logits = self.mlp(torch.cat([pooled, features], dim=-1))
        loss = self.loss_fct(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}
