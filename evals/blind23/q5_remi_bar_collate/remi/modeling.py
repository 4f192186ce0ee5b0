import torch
import torch.nn as nn
import torch.nn.functional as F

from .vocab import N_POS, VOCAB_SIZE


class BarLocalBlock(nn.Module):
    def __init__(self, d_model, num_heads, ffn_dim):
        super().__init__()
        self.h = num_heads
        self.ln1 = nn.LayerNorm(d_model)
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.ffn = nn.Sequential(nn.Linear(d_model, ffn_dim), nn.GELU(), nn.Linear(ffn_dim, d_model))

    def forward(self, x, mask):
        b, n, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, n, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None])
        x = x + self.proj(out.transpose(1, 2).reshape(b, n, d))
        return x + self.ffn(self.ln2(x))


class RemiLM(nn.Module):
    def __init__(self, d_model=48, num_heads=2, ffn_dim=96, max_bars=32):
        super().__init__()
        self.tok = nn.Embedding(VOCAB_SIZE, d_model)
        self.bar = nn.Embedding(max_bars, d_model)
        self.pos = nn.Embedding(N_POS + 1, d_model)
        self.block = BarLocalBlock(d_model, num_heads, ffn_dim)
        self.ln = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, VOCAB_SIZE)

    def forward(self, input_ids, bar_ids, position_ids, attention_mask, labels=None):
        x = self.tok(input_ids) + self.bar(bar_ids) + self.pos(position_ids)
        logits = self.lm_head(self.ln(self.block(x, attention_mask)))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1), ignore_index=-100)
        return loss, logits
