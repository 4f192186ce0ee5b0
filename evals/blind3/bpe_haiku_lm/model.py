import torch
from torch import nn
import torch.nn.functional as F


class CausalConvBlock(nn.Module):
    def __init__(self, d, k):
        super().__init__()
        self.k = k
        self.conv = nn.Conv1d(d, 2 * d, k)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):  # x: B, T, D
        h = self.norm(x).transpose(1, 2)
        h = F.pad(h, (self.k - 1, 0))
        h = F.glu(self.conv(h), dim=1).transpose(1, 2)
        return x + h


class ConvLM(nn.Module):
    def __init__(self, vocab, d_model, kernel, layers, max_len):
        super().__init__()
        self.tok = nn.Embedding(vocab, d_model, padding_idx=0)
        self.pos = nn.Embedding(max_len, d_model)
        self.blocks = nn.ModuleList(CausalConvBlock(d_model, kernel) for _ in range(layers))
        self.head = nn.Linear(d_model, vocab)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1])
        x = self.tok(ids) + self.pos(pos)[None]
        for b in self.blocks:
            x = b(x)
        return self.head(x)
