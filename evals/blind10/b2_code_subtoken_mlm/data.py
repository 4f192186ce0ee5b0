"""Dataset and HF-style collator for masked sub-token modelling on code."""
import numpy as np
import torch
from torch.utils.data import Dataset


class CodeSnippetDataset(Dataset):
    def __init__(self, sources, lexer, max_len, seed):
        self.sources = sources
        self.lexer = lexer
        self.max_len = max_len
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.sources)

    def __getitem__(self, idx):
        ids = self.lexer.encode(self.sources[idx])
        if len(ids) > self.max_len:  # random window over long functions
            start = int(self.rng.integers(0, len(ids) - self.max_len + 1))
            ids = ids[start:start + self.max_len]
        return {"input_ids": ids, "length": len(ids)}


class DataCollatorForSubtokenMLM:
    """Pad to the longest in the batch, then BERT-style 80/10/10 masking of 15% of the real tokens."""

    def __init__(self, pad_id, mask_id, vocab_size, n_special, mlm_probability=0.15, seed=0):
        self.pad_id = pad_id
        self.mask_id = mask_id
        self.vocab_size = vocab_size
        self.n_special = n_special
        self.mlm_probability = mlm_probability
        self.generator = torch.Generator().manual_seed(seed)

    def __call__(self, features):
        longest = max(f["length"] for f in features)
        input_ids = torch.full((len(features), longest), self.pad_id, dtype=torch.long)
        for row, f in enumerate(features):
            input_ids[row, :f["length"]] = torch.tensor(f["input_ids"], dtype=torch.long)
        attention_mask = (input_ids != self.pad_id).long()
        labels = input_ids.clone()
        prob = torch.full(labels.shape, self.mlm_probability)
        prob.masked_fill_(input_ids < self.n_special, 0.0)
        masked = torch.bernoulli(prob, generator=self.generator).bool()
        labels[~masked] = -100
        replace = torch.bernoulli(torch.full(labels.shape, 0.8), generator=self.generator).bool() & masked
        input_ids[replace] = self.mask_id
        rand = torch.bernoulli(torch.full(labels.shape, 0.5), generator=self.generator).bool() & masked & ~replace
        words = torch.randint(self.n_special, self.vocab_size, labels.shape, generator=self.generator)
        input_ids[rand] = words[rand]
        return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
