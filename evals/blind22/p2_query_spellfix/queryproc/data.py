from dataclasses import dataclass

import torch
from torch.utils.data import Dataset


class QueryLogDataset(Dataset):
    def __init__(self, queries, intents, tokenizer):
        self.queries = queries
        self.intents = intents
        self.tokenizer = tokenizer

    def __len__(self):
        return len(self.queries)

    def __getitem__(self, idx):
        features = self.tokenizer(self.queries[idx])
        features["labels"] = self.intents[idx]
        return features


@dataclass
class DataCollatorWithPadding:
    pad_token_id: int = 0
    pad_to_multiple_of: int = None

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        if self.pad_to_multiple_of:
            m = self.pad_to_multiple_of
            longest = (longest + m - 1) // m * m
        input_ids, attention_mask = [], []
        for f in features:
            pad = longest - len(f["input_ids"])
            input_ids.append(f["input_ids"] + [self.pad_token_id] * pad)
            attention_mask.append(f["attention_mask"] + [0] * pad)
        return {
            "input_ids": torch.tensor(input_ids, dtype=torch.long),
            "attention_mask": torch.tensor(attention_mask, dtype=torch.long),
            "labels": torch.tensor([f["labels"] for f in features], dtype=torch.long),
        }
