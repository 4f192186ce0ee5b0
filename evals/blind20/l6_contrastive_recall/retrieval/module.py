import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class DualEncoder(nn.Module):
    """CLIP-style image/text towers with a learnable temperature."""

    def __init__(self, image_dim, vocab_size, embed_dim, temperature):
        super().__init__()
        self.image_tower = nn.Sequential(nn.Linear(image_dim, 128), nn.GELU(), nn.Linear(128, embed_dim))
        self.token_emb = nn.Embedding(vocab_size, embed_dim, padding_idx=0)
        self.text_proj = nn.Linear(embed_dim, embed_dim)
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1.0 / temperature)))

    def encode_text(self, tokens, lengths):
        mask = (torch.arange(tokens.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)).float()
        pooled = (self.token_emb(tokens) * mask.unsqueeze(-1)).sum(1) / lengths.unsqueeze(1).float()
        return self.text_proj(pooled)

    def training_step(self, batch):
        img = F.normalize(self.image_tower(batch["image"]), dim=-1)
        txt = F.normalize(self.encode_text(batch["tokens"], batch["lengths"]), dim=-1)
        similarity = img @ txt.t()
        logits = self.logit_scale.exp().clamp(max=100.0) * similarity
        targets = torch.arange(logits.shape[0])
        loss = 0.5 * (F.cross_entropy(logits, targets) + F.cross_entropy(logits.t(), targets))
        return {"loss": loss, "similarity": similarity.detach()}
