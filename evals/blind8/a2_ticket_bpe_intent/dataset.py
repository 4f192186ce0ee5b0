import random

import torch
from torch.utils.data import Dataset


class TicketDataset(Dataset):
    """Raw ticket text in, padded ids out. Word dropout (whole pre-tokens) as augmentation."""

    def __init__(self, texts, labels, tokenizer, max_length, word_dropout, seed):
        self.texts = texts
        self.labels = labels
        self.tok = tokenizer
        self.max_length = max_length
        self.word_dropout = word_dropout
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, idx):
        words = self.tok.pretokenize(self.texts[idx])
        if self.word_dropout > 0:
            kept = [w for w in words if self.rng.random() >= self.word_dropout]
            words = kept or words[:1]
        ids = self.tok.encode_words(words)[: self.max_length]
        if ids[-1] != self.tok.sep_id:
            ids[-1] = self.tok.sep_id
        n = len(ids)
        pad = self.max_length - n
        return {
            "input_ids": torch.tensor(ids + [self.tok.pad_id] * pad, dtype=torch.long),
            "attention_mask": torch.tensor([1] * n + [0] * pad, dtype=torch.long),
            "labels": torch.tensor(self.labels[idx], dtype=torch.long),
        }
