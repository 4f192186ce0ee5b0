import re
import zlib
from collections import Counter

import torch
from torch.utils.data import Dataset

TOKEN_RE = re.compile(r"[a-z0-9']+(?:-[a-z0-9']+)*")
PAD, UNK = 0, 1


def tokenize(text):
    return TOKEN_RE.findall(text.lower())


def build_vocab(texts, min_count):
    counts = Counter(tok for t in texts for tok in tokenize(t))
    vocab = {"<pad>": PAD, "<unk>": UNK}
    for tok, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if c >= min_count:
            vocab[tok] = len(vocab)
    return vocab


class TicketText(Dataset):
    def __init__(self, texts, labels, vocab, max_tokens, buckets):
        self.texts, self.labels, self.vocab = texts, labels, vocab
        self.max_tokens, self.buckets = max_tokens, buckets

    def __len__(self):
        return len(self.texts)

    def encode(self, text):
        toks = tokenize(text)[: self.max_tokens]
        ids = [self.vocab.get(t, UNK) for t in toks]
        bigrams = []
        for a, b in zip(toks, toks[1:]):
            bigrams.append(2 + zlib.crc32(f"{a} {b}".encode()) % (self.buckets - 2))
        n_ids, n_bi = len(ids), len(bigrams)
        ids += [PAD] * (self.max_tokens - n_ids)
        bigrams += [PAD] * (self.max_tokens - n_bi)
        return ids, bigrams, n_ids

    def __getitem__(self, i):
        ids, bigrams, n = self.encode(self.texts[i])
        return (torch.tensor(ids), torch.tensor(bigrams), torch.tensor(n), torch.tensor(self.labels[i]))
