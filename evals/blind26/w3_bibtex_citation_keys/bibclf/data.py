import torch
from torch.utils.data import Dataset

from .bibtex import latex_to_text, parse_entry

FIELD_ORDER = ("title", "author", "journal", "booktitle", "publisher", "school", "institution",
               "type", "howpublished", "note", "address", "edition", "volume", "number", "pages", "isbn", "year", "abstract")


def entry_text(raw):
    key, fields = parse_entry(raw)
    parts = [key]
    for name in FIELD_ORDER:
        if name in fields:
            parts.append(f"{name} : {latex_to_text(fields[name])}")
    return " ; ".join(parts)


class BibDataset(Dataset):
    def __init__(self, corpus, tokenizer, max_tokens):
        self.raw = [raw for raw, _ in corpus]
        self.labels = [label for _, label in corpus]
        self.tok = tokenizer
        self.max_tokens = max_tokens

    def __len__(self):
        return len(self.raw)

    def __getitem__(self, i):
        ids = self.tok.encode(entry_text(self.raw[i]), self.max_tokens)
        padded = torch.zeros(self.max_tokens, dtype=torch.long)
        padded[: len(ids)] = torch.tensor(ids, dtype=torch.long)
        return {"input_ids": padded, "length": torch.tensor(len(ids)), "label": torch.tensor(self.labels[i])}
