import random

import torch
from torch.utils.data import Dataset

from .names import random_name


class IupacNameDataset(Dataset):
    def __init__(self, n_names, max_substituents, tokenizer, max_len, seed):
        rng = random.Random(seed)
        self.records = [random_name(rng, max_substituents) for _ in range(n_names)]
        self.tokenizer = tokenizer
        self.max_len = max_len

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        name, label = self.records[i]
        ids = self.tokenizer.encode(name, self.max_len)
        return torch.tensor(ids, dtype=torch.long), label
