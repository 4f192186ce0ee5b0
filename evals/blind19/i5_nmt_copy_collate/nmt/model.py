import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyPointerGenerator(nn.Module):
    """Bag-of-context encoder, feed-forward decoder, dot-product attention and a copy switch."""

    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=32, pad_id=0):
        super().__init__()
        self.src_embed = nn.Embedding(src_vocab_size, d_model, padding_idx=pad_id)
        self.tgt_embed = nn.Embedding(tgt_vocab_size, d_model, padding_idx=pad_id)
        self.enc = nn.Linear(2 * d_model, d_model)
        self.dec = nn.Linear(2 * d_model, d_model)
        self.out = nn.Linear(d_model, tgt_vocab_size)
        self.switch = nn.Linear(2 * d_model, 1)

    def forward(self, input_ids, attention_mask, decoder_input_ids, labels, copy_mask):
        mask = attention_mask.unsqueeze(-1).float()
        src = self.src_embed(input_ids)
        ctx = (src * mask).sum(1, keepdim=True) / mask.sum(1, keepdim=True).clamp(min=1.0)
        enc = torch.tanh(self.enc(torch.cat([src, ctx.expand_as(src)], dim=-1)))
        tgt = self.tgt_embed(decoder_input_ids)
        h = torch.tanh(self.dec(torch.cat([tgt, ctx.expand_as(tgt)], dim=-1)))

        scores = torch.einsum("btd,bsd->bts", h, enc).masked_fill(attention_mask[:, None, :] == 0, -1e9)
        attn = scores.softmax(-1)
        attended = torch.einsum("bts,bsd->btd", attn, enc)
        p_gen = torch.sigmoid(self.switch(torch.cat([h, attended], dim=-1))).squeeze(-1)

        valid = labels != -100
        safe_labels = labels.clamp(min=0)
        p_vocab = F.softmax(self.out(h), dim=-1).gather(-1, safe_labels.unsqueeze(-1)).squeeze(-1)
        p_copy = (attn * copy_mask).sum(-1)
        prob = p_gen * p_vocab + (1.0 - p_gen) * p_copy
        nll = -torch.log(prob.clamp(min=1e-9))
        return (nll * valid).sum() / valid.sum()
