"""Streamed review text, tokenised on the fly into hashed word and character n-gram ids."""
import numpy as np
import torch
from torch.utils.data import IterableDataset, get_worker_info


def make_reviews(n, vocab_words, min_words, max_words, seed):
    """Random pseudo-words; the first 50 read as positive, the next 50 as negative."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    vocab = ["".join(rng.choice(letters, rng.integers(3, 10))) for _ in range(vocab_words)]
    texts, labels = [], []
    for length in rng.integers(min_words, max_words + 1, n):
        idx = rng.integers(0, vocab_words, length)
        score = np.sum(idx < 50) - np.sum((idx >= 50) & (idx < 100))
        texts.append(" ".join(vocab[j] for j in idx))
        labels.append(int(score > 0))
    return texts, labels


def hash_token(token, n_buckets):
    """FNV-1a; bucket 0 is reserved for padding."""
    h = 2166136261
    for ch in token:
        h = ((h ^ ord(ch)) * 16777619) & 0xFFFFFFFF
    return 1 + h % (n_buckets - 1)


def tokenize(text, n_buckets, ngram):
    ids = []
    for word in text.split():
        ids.append(hash_token(word, n_buckets))
        marked = f"<{word}>"
        for j in range(len(marked) - ngram + 1):
            ids.append(hash_token(marked[j:j + ngram], n_buckets))
    return ids


class ReviewStream(IterableDataset):
    def __init__(self, texts, labels, n_buckets, ngram, max_tokens):
        self.texts, self.labels = texts, labels
        self.n_buckets, self.ngram, self.max_tokens = n_buckets, ngram, max_tokens

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(start, len(self.texts), step):
            ids = tokenize(self.texts[i], self.n_buckets, self.ngram)[: self.max_tokens]
            padded = torch.zeros(self.max_tokens, dtype=torch.int64)
            padded[: len(ids)] = torch.tensor(ids)
            yield {"ids": padded, "label": torch.tensor(self.labels[i], dtype=torch.float32)}
