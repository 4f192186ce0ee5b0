"""Search queries tokenised against a large vocabulary, one tokeniser per loader worker."""
import random

import numpy as np
import torch
from torch.utils.data import Dataset, get_worker_info


def load_vocab(size):
    # Stands in for reading vocab.txt: a big word -> id table.
    return {f"tok{i}": i for i in range(size)}


def make_queries(n, vocab_size, max_words, n_intents, seed):
    rng = random.Random(seed)
    queries, intents = [], []
    for _ in range(n):
        ids = [rng.randrange(vocab_size) for _ in range(rng.randint(3, max_words))]
        queries.append(" ".join(f"tok{i}" for i in ids))
        intents.append(ids[0] % n_intents)
    return queries, intents


class QueryDataset(Dataset):
    def __init__(self, queries, intents, vocab_size, max_words):
        self.queries, self.intents = queries, intents
        self.vocab_size, self.max_words = vocab_size, max_words
        self.vocab = None  # built in each worker: the real tokeniser is not fork-safe

    def __len__(self):
        return len(self.queries)

    def __getitem__(self, i):
        if self.vocab is None:
            self.vocab = load_vocab(self.vocab_size)
        ids = [self.vocab.get(w, 0) for w in self.queries[i].split()][: self.max_words]
        tokens = np.zeros(self.max_words, dtype=np.int64)
        tokens[: len(ids)] = ids
        return {"tokens": torch.from_numpy(tokens), "length": len(ids), "intent": self.intents[i]}


def worker_init(worker_id):
    dataset = get_worker_info().dataset
    dataset.vocab = load_vocab(dataset.vocab_size)
