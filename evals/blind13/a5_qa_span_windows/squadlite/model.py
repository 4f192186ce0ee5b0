import torch
import torch.nn as nn
import torch.nn.functional as F


class SpanExtractor(nn.Module):
    """Token + segment embeddings, two dilated convolutions, start/end logits per token."""

    def __init__(self, vocab_size, dim=32):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.seg = nn.Embedding(2, dim)
        self.conv1 = nn.Conv1d(dim, dim, 3, padding=1)
        self.conv2 = nn.Conv1d(dim, dim, 3, padding=2, dilation=2)
        self.qa_outputs = nn.Linear(dim, 2)

    def forward(self, input_ids, token_type_ids, attention_mask):
        h = self.tok(input_ids) + self.seg(token_type_ids)
        h = h.transpose(1, 2)
        h = h + F.gelu(self.conv1(h))
        h = h + F.gelu(self.conv2(h))
        logits = self.qa_outputs(h.transpose(1, 2))
        logits = logits.masked_fill(attention_mask.unsqueeze(-1) == 0, -1e4)
        return logits[..., 0], logits[..., 1]

    @staticmethod
    def loss(start_logits, end_logits, start_positions, end_positions):
        return (F.cross_entropy(start_logits, start_positions) + F.cross_entropy(end_logits, end_positions)) / 2
