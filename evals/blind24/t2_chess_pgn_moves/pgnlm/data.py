import torch
from torch.utils.data import Dataset

LABELS = {"1-0": 0, "0-1": 1, "1/2-1/2": 2}


class PGNGameDataset(Dataset):
    def __init__(self, games, tokenizer, max_length):
        self.games = games
        self.tokenizer = tokenizer
        self.max_length = max_length

    def __len__(self):
        return len(self.games)

    def __getitem__(self, idx):
        enc = self.tokenizer(self.games[idx], max_length=self.max_length, truncation=True)
        tags = enc.pop("tags")
        elo_diff = (int(tags["WhiteElo"]) - int(tags["BlackElo"])) / 400.0
        enc["elo_diff"] = elo_diff
        enc["labels"] = LABELS[tags["Result"]]
        return enc


class DataCollatorWithPadding:
    def __init__(self, pad_token_id=0):
        self.pad_token_id = pad_token_id

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        ids = torch.full((len(features), longest), self.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(features), longest), dtype=torch.long)
        for i, f in enumerate(features):
            n = len(f["input_ids"])
            ids[i, :n] = torch.tensor(f["input_ids"], dtype=torch.long)
            mask[i, :n] = 1
        return {
            "input_ids": ids,
            "attention_mask": mask,
            "elo_diff": torch.tensor([f["elo_diff"] for f in features], dtype=torch.float32),
            "labels": torch.tensor([f["labels"] for f in features], dtype=torch.long),
        }
