"""Synthetic support tickets and the character tokenizer that feeds them to the model."""
import unicodedata

import numpy as np
import torch
from torch.utils.data import Dataset

PAD, UNK = 0, 1
ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789 .,!?-'"
VOCAB = {ch: i + 2 for i, ch in enumerate(ALPHABET)}
KEYWORDS = ("refund", "crash", "login", "invoice")


def make_tickets(n_docs, doc_chars, n_classes, seed):
    """Random printable text with stray control characters and one class keyword repeated in it."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_classes, size=n_docs)
    noise = np.array(list("ABCDEFGHIJKLMNOPQRSTUVWXYZ" + ALPHABET + "\t\n\x00\x07\x1b\x7f"))
    docs = []
    for label in labels:
        chars = rng.choice(noise, size=doc_chars)
        for pos in rng.integers(0, doc_chars - 8, size=6):
            chars[pos:pos + len(KEYWORDS[label])] = list(KEYWORDS[label].upper())
        docs.append("".join(chars))
    return docs, labels


def _is_control(ch):
    return unicodedata.category(ch).startswith("C") and ch not in "\t\n"


def normalize(text):
    """Drop control characters, turn tabs and newlines into spaces, lower-case the rest."""
    out = []
    for ch in text:
        if _is_control(ch):
            continue
        if ch in "\t\n":
            ch = " "
        out.append(ch.lower())
    return "".join(out)


def encode(text, max_len):
    ids = [VOCAB.get(ch, UNK) for ch in normalize(text)][:max_len]
    return ids + [PAD] * (max_len - len(ids))


class TicketDataset(Dataset):
    def __init__(self, n_docs, doc_chars, max_len, n_classes, seed):
        self.docs, self.labels = make_tickets(n_docs, doc_chars, n_classes, seed)
        self.max_len = max_len

    def __len__(self):
        return len(self.docs)

    def __getitem__(self, i):
        ids = encode(self.docs[i], self.max_len)
        return {"input_ids": torch.tensor(ids), "attention_mask": torch.tensor([int(t != PAD) for t in ids]),
                "labels": torch.tensor(int(self.labels[i]))}
