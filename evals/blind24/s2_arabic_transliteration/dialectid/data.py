import torch
from torch.utils.data import Dataset


class PostsDataset(Dataset):
    """A list of posts with labels; an optional on-the-fly transform (like datasets.set_transform)."""

    def __init__(self, posts, labels):
        self.posts, self.labels = posts, labels
        self._transform = None

    def set_transform(self, fn):
        self._transform = fn

    def __len__(self):
        return len(self.posts)

    def __getitem__(self, idx):
        example = {"text": self.posts[idx], "label": self.labels[idx]}
        if self._transform is not None:
            example = self._transform(example)
        return example


class DataCollatorWithPadding:
    def __init__(self, pad_token_id=0, pad_to_multiple_of=None):
        self.pad_token_id = pad_token_id
        self.pad_to_multiple_of = pad_to_multiple_of

    def __call__(self, features):
        longest = max(len(f["input_ids"]) for f in features)
        if self.pad_to_multiple_of:
            m = self.pad_to_multiple_of
            longest = (longest + m - 1) // m * m
        ids = torch.full((len(features), longest), self.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(features), longest), dtype=torch.long)
        for i, f in enumerate(features):
            n = len(f["input_ids"])
            ids[i, :n] = torch.tensor(f["input_ids"], dtype=torch.long)
            mask[i, :n] = 1
        labels = torch.tensor([f["label"] for f in features], dtype=torch.long)
        return {"input_ids": ids, "attention_mask": mask, "labels": labels}
