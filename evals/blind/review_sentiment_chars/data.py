"""Character-level review sentiment data (synthetic corpus, built from the seed)."""
import random

import torch
from torch.utils.data import Dataset

POSITIVE = ["great", "excellent", "loved", "wonderful", "superb", "fantastic", "happy", "recommend"]
NEGATIVE = ["awful", "terrible", "hated", "boring", "broken", "refund", "disappointing", "worst"]
NEUTRAL = ("the a it this that product was is and but very quite really item price delivery box "
           "arrived after days week color size fits works battery screen sound quality seller "
           "ordered again would not maybe okay fine some parts").split()

PAD, UNK = "<pad>", "<unk>"


def synth_reviews(n, min_words, max_words, seed):
    rng = random.Random(seed)
    texts, labels = [], []
    for _ in range(n):
        label = rng.randint(0, 1)
        words = []
        for _ in range(rng.randint(min_words, max_words)):
            r = rng.random()
            if r < 0.10:
                words.append(rng.choice(POSITIVE if label else NEGATIVE))
            elif r < 0.14:
                words.append(rng.choice(NEGATIVE if label else POSITIVE))
            else:
                words.append(rng.choice(NEUTRAL))
        text = " ".join(words)
        if rng.random() < 0.3:
            text = text.capitalize() + "!"
        texts.append(text)
        labels.append(label)
    return texts, labels


class CharVocab:
    def __init__(self, texts):
        chars = set()
        for t in texts:
            chars.update(t.lower())
        self.itos = [PAD, UNK] + sorted(chars)
        self.stoi = {c: i for i, c in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def encode(self, text, max_len):
        ids = []
        text = text.lower()
        for i in range(len(text)):
            if i >= max_len:
                break
            ids.append(self.stoi.get(text[i], self.stoi[UNK]))
        mask = [1] * len(ids)
        while len(ids) < max_len:
            ids.append(self.stoi[PAD])
            mask.append(0)
        return ids, mask


class ReviewChars(Dataset):
    def __init__(self, texts, labels, vocab, max_chars):
        self.texts = texts
        self.labels = labels
        self.vocab = vocab
        self.max_chars = max_chars

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, idx):
        ids, mask = self.vocab.encode(self.texts[idx], self.max_chars)
        return {
            "input_ids": torch.tensor(ids, dtype=torch.long),
            "attention_mask": torch.tensor(mask, dtype=torch.float32),
            "label": torch.tensor(self.labels[idx], dtype=torch.long),
        }
