import torch
from torch.utils.data import Dataset


class TuneTypeDataset(Dataset):
    """Raw ABC text in memory; tokenized on access, like a `datasets` map-free pipeline."""

    def __init__(self, texts, kinds, tokenizer, label_names):
        self.texts = texts
        self.kinds = kinds
        self.tokenizer = tokenizer
        self.label2id = {name: i for i, name in enumerate(label_names)}

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, idx):
        enc = self.tokenizer(self.texts[idx], truncation=True)
        enc["labels"] = self.label2id[self.kinds[idx]]
        return enc


class PadCollator:
    def __init__(self, pad_token_id):
        self.pad_token_id = pad_token_id

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        ids = torch.full((len(features), longest), self.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(features), longest), dtype=torch.long)
        for i, f in enumerate(features):
            n = len(f["input_ids"])
            ids[i, :n] = torch.tensor(f["input_ids"], dtype=torch.long)
            mask[i, :n] = 1
        labels = torch.tensor([f["labels"] for f in features], dtype=torch.long)
        return {"input_ids": ids, "attention_mask": mask, "labels": labels}
