import torch
from torch.utils.data import Dataset

from .srt import clean_text, merge_cues, parse_srt, speaking_rate_features


def preprocess(text, cfg):
    cues = merge_cues(parse_srt(text), cfg["merge_gap_ms"])
    cleaned = [clean_text(c.text, cfg["lowercase"]) for c in cues]
    return cues, cleaned


class SubtitleGenreDataset(Dataset):
    """Raw SRT documents; parsing, cleanup, features and tokenisation happen per item."""

    def __init__(self, documents, labels, tokenizer, cfg):
        self.documents = documents
        self.labels = labels
        self.tokenizer = tokenizer
        self.cfg = cfg

    def __len__(self):
        return len(self.documents)

    def __getitem__(self, idx):
        cues, cleaned = preprocess(self.documents[idx], self.cfg)
        enc = self.tokenizer(" ".join(cleaned), max_length=self.cfg["max_length"])
        enc["features"] = speaking_rate_features(cues, cleaned)
        enc["labels"] = self.labels[idx]
        return enc


class DataCollatorWithPadding:
    def __init__(self, pad_token_id):
        self.pad_token_id = pad_token_id

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        ids = torch.full((len(features), longest), self.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(features), longest), dtype=torch.long)
        for i, f in enumerate(features):
            n = len(f["input_ids"])
            ids[i, :n] = torch.tensor(f["input_ids"], dtype=torch.long)
            mask[i, :n] = torch.tensor(f["attention_mask"], dtype=torch.long)
        return {
            "input_ids": ids,
            "attention_mask": mask,
            "features": torch.tensor([f["features"] for f in features], dtype=torch.float32),
            "labels": torch.tensor([f["labels"] for f in features], dtype=torch.long),
        }
