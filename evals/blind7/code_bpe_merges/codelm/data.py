import torch
from torch.utils.data import Dataset


class CodeWindowDataset(Dataset):
    """Causal-LM windows over tokenized source files.

    Each access tokenizes the file and takes a random window of seq_len + 1 tokens
    (files shorter than that are right-padded and the padding is masked in the labels).
    """

    def __init__(self, files, tokenizer, seq_len, seed):
        self.files = files
        self.tokenizer = tokenizer
        self.seq_len = seq_len
        self.generator = torch.Generator().manual_seed(seed)

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        ids = self.tokenizer.encode(self.files[idx])
        span = self.seq_len + 1
        if len(ids) > span:
            start = int(torch.randint(0, len(ids) - span + 1, (1,), generator=self.generator))
            ids = ids[start:start + span]
        window = torch.full((span,), self.tokenizer.pad_id, dtype=torch.long)
        window[: len(ids)] = torch.tensor(ids, dtype=torch.long)
        labels = window[1:].clone()
        labels[labels == self.tokenizer.pad_id] = -100
        return {"input_ids": window[:-1], "labels": labels}
