import numpy as np
from torch.utils.data import Dataset


class ReviewDataset(Dataset):
    """Map-style dataset; each review is tokenised when it is fetched, then long ones are randomly
    cropped to max_length (the [CLS] token is kept) with probability crop_prob, else truncated."""

    def __init__(self, reviews, tokenizer, max_length, crop_prob, seed):
        self.reviews = reviews
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.crop_prob = crop_prob
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.reviews)

    def __getitem__(self, idx):
        review = self.reviews[idx]
        enc = self.tokenizer(review["text"])
        ids = enc["input_ids"]
        if len(ids) > self.max_length:
            if self.rng.random() < self.crop_prob:
                start = 1 + int(self.rng.integers(0, len(ids) - self.max_length + 1))
                ids = [ids[0]] + ids[start:start + self.max_length - 1]
            else:
                ids = ids[: self.max_length]
        return {"input_ids": ids, "label": review["stars"] - 1}
