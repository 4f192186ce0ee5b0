import torch
from torch.utils.data import Dataset


class UrlDataset(Dataset):
    def __init__(self, urls, labels, featurizer):
        self.urls = urls
        self.labels = labels
        self.featurizer = featurizer

    def __len__(self):
        return len(self.urls)

    def __getitem__(self, idx):
        enc = self.featurizer(self.urls[idx])
        return {
            "ngram_counts": torch.from_numpy(enc["ngram_counts"]),
            "dense": torch.tensor(enc["dense"], dtype=torch.float32),
            "labels": self.labels[idx],
        }
