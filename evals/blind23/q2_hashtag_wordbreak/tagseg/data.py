import torch
from torch.utils.data import Dataset


class PostDataset(Dataset):
    def __init__(self, posts, labels):
        self.posts, self.labels = posts, labels

    def __len__(self):
        return len(self.posts)

    def __getitem__(self, i):
        return {"text": self.posts[i], "label": self.labels[i]}


class DataCollatorForHashtags:
    """Tokenises a list of raw posts on the fly and pads them (like DataCollatorWithPadding)."""

    def __init__(self, tokenizer, max_length=None):
        self.tokenizer = tokenizer
        self.max_length = max_length

    def __call__(self, features):
        batch = self.tokenizer([f["text"] for f in features], padding=True, max_length=self.max_length)
        batch["labels"] = torch.tensor([f["label"] for f in features], dtype=torch.long)
        return batch
