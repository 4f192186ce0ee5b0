"""Synthetic image/caption pairs that share a latent concept vector."""
import torch
from torch.utils.data import Dataset

MAX_LEN = 20


class PairedCaptionDataset(Dataset):
    """Image features + captions pre-tokenised and padded to MAX_LEN (pad id 0)."""

    def __init__(self, num_pairs, concept_dim, image_dim, vocab_size, seed):
        g = torch.Generator().manual_seed(seed)
        concepts = torch.randn(num_pairs, concept_dim, generator=g)
        proj = torch.randn(concept_dim, image_dim, generator=g) / concept_dim ** 0.5
        self.images = torch.tanh(concepts @ proj) + 0.3 * torch.randn(num_pairs, image_dim, generator=g)
        word_proj = torch.randn(concept_dim, vocab_size, generator=g)
        word_logits = 2.0 * (concepts @ word_proj) / concept_dim ** 0.5
        self.lengths = torch.randint(6, MAX_LEN + 1, (num_pairs,), generator=g)
        words = 1 + torch.multinomial(torch.softmax(word_logits[:, 1:], dim=1), MAX_LEN,
                                      replacement=True, generator=g)
        pad = torch.arange(MAX_LEN).unsqueeze(0) >= self.lengths.unsqueeze(1)
        self.tokens = words.masked_fill(pad, 0)

    def __len__(self):
        return self.tokens.shape[0]

    def __getitem__(self, idx):
        """idx is an int or a whole batch of indices (from a BatchSampler): one gather per field."""
        idx = torch.as_tensor(idx)
        return {"image": self.images[idx], "tokens": self.tokens[idx], "lengths": self.lengths[idx]}
