import torch
import torch.nn as nn
import torch.nn.functional as F


class NeighbourMLM(nn.Module):
    """Predicts a masked token from its own (masked) embedding, its two neighbours and its position.

    Only the labelled positions are gathered, so the cost follows the number of masked tokens.
    """

    def __init__(self, vocab_size, dim, max_len=512, pad_id=0):
        super().__init__()
        self.pad_id = pad_id
        self.center = nn.Embedding(vocab_size, dim)
        self.left = nn.Embedding(vocab_size, dim)
        self.right = nn.Embedding(vocab_size, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.norm = nn.LayerNorm(dim)
        self.out = nn.Linear(dim, vocab_size)

    def forward(self, input_ids, attention_mask, labels):
        rows, cols = (labels != -100).nonzero(as_tuple=True)
        padded = F.pad(input_ids * attention_mask, (1, 1), value=self.pad_id)
        h = (self.center(input_ids[rows, cols]) + self.left(padded[rows, cols])
             + self.right(padded[rows, cols + 2]) + self.pos(cols))
        logits = self.out(F.gelu(self.norm(h)))
        targets = labels[rows, cols]
        return F.cross_entropy(logits, targets), logits, targets
