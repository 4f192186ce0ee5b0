import zlib
from dataclasses import dataclass

import torch
from torch.utils.data import Dataset

from .corpus import COMMIT_TYPES
from .parsing import parse_commit

NUM_SCOPE_BUCKETS = 64


class CommitDataset(Dataset):
    def __init__(self, messages, tokenizer):
        self.messages = messages
        self.tokenizer = tokenizer
        self.label2id = {t: i for i, t in enumerate(COMMIT_TYPES)}

    def __len__(self):
        return len(self.messages)

    def __getitem__(self, idx):
        commit = parse_commit(self.messages[idx])
        enc = self.tokenizer(commit.subject, commit.body)
        enc["scope_id"] = zlib.crc32(commit.scope.encode()) % NUM_SCOPE_BUCKETS if commit.scope else 0
        enc["breaking"] = int(commit.breaking)
        enc["num_issues"] = len(commit.issues)
        enc["labels"] = self.label2id.get(commit.type, 0)
        return enc


@dataclass
class DataCollatorWithPadding:
    pad_token_id: int = 0
    pad_to_multiple_of: int = 8

    def __call__(self, features):
        max_len = max(len(f["input_ids"]) for f in features)
        if self.pad_to_multiple_of:
            max_len = -(-max_len // self.pad_to_multiple_of) * self.pad_to_multiple_of
        input_ids = torch.full((len(features), max_len), self.pad_token_id, dtype=torch.long)
        attention_mask = torch.zeros((len(features), max_len), dtype=torch.long)
        for i, f in enumerate(features):
            n = len(f["input_ids"])
            input_ids[i, :n] = torch.tensor(f["input_ids"], dtype=torch.long)
            attention_mask[i, :n] = 1
        return {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "scope_id": torch.tensor([f["scope_id"] for f in features], dtype=torch.long),
            "breaking": torch.tensor([f["breaking"] for f in features], dtype=torch.float32),
            "num_issues": torch.tensor([f["num_issues"] for f in features], dtype=torch.float32),
            "labels": torch.tensor([f["labels"] for f in features], dtype=torch.long),
        }
