"""Synthetic surnames from 12 'origins', each with its own syllable inventory, as hashed char n-grams."""
import random
import string
import zlib

import torch

PAD = 0


def make_names(num_names, num_origins, seed):
    rng = random.Random(seed)
    letters = string.ascii_lowercase
    inventories = []
    for _ in range(num_origins):
        sylls = set()
        while len(sylls) < 14:
            sylls.add("".join(rng.choice(letters) for _ in range(rng.randint(1, 3))))
        inventories.append(sorted(sylls))
    names, origins = [], []
    for _ in range(num_names):
        o = rng.randrange(num_origins)
        names.append("".join(rng.choice(inventories[o]) for _ in range(rng.randint(2, 5))))
        origins.append(o)
    return names, origins


def char_ngrams(name, n_min=1, n_max=3):
    word = f"<{name}>"
    return [word[i:i + n] for n in range(n_min, n_max + 1) for i in range(len(word) - n + 1)]


def hash_ngrams(names, buckets, max_ngrams):
    """fastText-style bucket ids (crc32 mod buckets, 0 kept for padding), padded to max_ngrams."""
    out = torch.full((len(names), max_ngrams), PAD, dtype=torch.long)
    for i, name in enumerate(names):
        ids = [1 + zlib.crc32(g.encode()) % (buckets - 1) for g in char_ngrams(name)][:max_ngrams]
        out[i, : len(ids)] = torch.tensor(ids)
    return out
