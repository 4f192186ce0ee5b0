import numpy as np
import torch
from torch.utils.data import Dataset

from .tokenizer import tokenize_cell


class RankedCells(Dataset):
    def __init__(self, counts, labels, gene_medians, target_sum, max_tokens, keep, seed):
        self.counts, self.labels = counts, labels
        self.gene_medians = gene_medians.tolist()
        self.target_sum, self.max_tokens, self.keep = target_sum, max_tokens, keep
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        # gene dropout augmentation: a random 1 - keep of the genes read zero
        dropped = self.rng.random(self.counts.shape[1]) >= self.keep
        counts = np.where(dropped, 0, self.counts[i])
        tokens, summary = tokenize_cell(counts.tolist(), self.gene_medians, self.target_sum, self.max_tokens)
        ids = torch.zeros(self.max_tokens, dtype=torch.long)
        ids[: len(tokens)] = torch.tensor(tokens)
        return ids, torch.tensor(summary, dtype=torch.float32), int(self.labels[i])
