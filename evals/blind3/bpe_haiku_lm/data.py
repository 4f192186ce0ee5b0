import random

import torch
from torch.utils.data import Dataset

ONSETS = ["", "k", "s", "t", "n", "h", "m", "y", "r", "w", "sh", "ch", "ts", "g", "z", "d", "b", "p"]
VOWELS = ["a", "i", "u", "e", "o"]
CODAS = ["", "", "", "n"]


def make_lines(n, min_words, max_words, seed):
    rng = random.Random(seed)
    lexicon = []
    for _ in range(600):
        syl = rng.randint(2, 6)
        lexicon.append("".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS) for _ in range(syl)))
    weights = [1.0 / (r + 1) ** 0.9 for r in range(len(lexicon))]  # Zipf-ish
    lines = []
    for _ in range(n):
        k = rng.randint(min_words, max_words)
        lines.append(" ".join(rng.choices(lexicon, weights=weights, k=k)))
    return lines


class HaikuLines(Dataset):
    """Returns (input_ids, target_ids) for next-token prediction, padded to max_len."""

    def __init__(self, lines, tokenizer, max_len):
        self.lines = lines
        self.tok = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, idx):
        ids = [self.tok.bos_id] + self.tok.encode(self.lines[idx]) + [self.tok.eos_id]
        ids = ids[: self.max_len + 1]
        ids = ids + [self.tok.pad_id] * (self.max_len + 1 - len(ids))
        ids = torch.tensor(ids, dtype=torch.long)
        return ids[:-1], ids[1:]
