import random

import torch
from torch.utils.data import Dataset

from .lexer import tokenize


class QueryDataset(Dataset):
    def __init__(self, workload, vocab, max_len, seed):
        self.texts = [q for q, _ in workload]
        self.labels = [c for _, c in workload]
        self.vocab = vocab
        self.max_len = max_len
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, idx):
        ids = self.vocab.encode(tokenize(self.texts[idx]))
        if len(ids) > self.max_len:
            # keep [CLS], take a random window of the rest
            start = self.rng.randint(1, len(ids) - self.max_len + 1)
            ids = [ids[0]] + ids[start:start + self.max_len - 1]
        return {"input_ids": ids, "labels": self.labels[idx]}


class PadCollator:
    def __init__(self, pad_id):
        self.pad_id = pad_id

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        ids = torch.full((len(features), longest), self.pad_id, dtype=torch.long)
        for row, f in enumerate(features):
            ids[row, :len(f["input_ids"])] = torch.tensor(f["input_ids"], dtype=torch.long)
        mask = (ids != self.pad_id).long()
        labels = torch.tensor([f["labels"] for f in features], dtype=torch.long)
        return {"input_ids": ids, "attention_mask": mask, "labels": labels}
