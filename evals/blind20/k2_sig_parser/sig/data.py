import torch
from torch.utils.data import Dataset


class SigDataset(Dataset):
    """Tokenizes each sig line on access, like a datasets.map(..., batched=False) that was never cached."""

    def __init__(self, corpus, tokenizer, max_length):
        self.corpus = corpus
        self.tokenizer = tokenizer
        self.max_length = max_length

    def __len__(self):
        return len(self.corpus)

    def __getitem__(self, idx):
        text, labels = self.corpus[idx]
        enc = self.tokenizer(text, max_length=self.max_length, truncation=True)
        enc["labels"] = [labels["route"], labels["freq"], labels["prn"]]
        return enc


class DataCollatorWithPadding:
    def __init__(self, pad_token_id):
        self.pad_token_id = pad_token_id

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        input_ids, attention_mask = [], []
        for f in features:
            pad = longest - len(f["input_ids"])
            input_ids.append(f["input_ids"] + [self.pad_token_id] * pad)
            attention_mask.append(f["attention_mask"] + [0] * pad)
        return {
            "input_ids": torch.tensor(input_ids, dtype=torch.long),
            "attention_mask": torch.tensor(attention_mask, dtype=torch.long),
            "slot_values": torch.tensor([f["slot_values"] for f in features], dtype=torch.float32),
            "labels": torch.tensor([f["labels"] for f in features], dtype=torch.long),
        }
