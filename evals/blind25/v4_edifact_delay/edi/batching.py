import numpy as np
import torch

from .features import voyage_features


class ManifestDataset:
    """Raw interchange texts as received; features are decoded on access."""

    def __init__(self, texts, delays):
        self.texts = texts
        self.targets = np.asarray(delays, dtype=np.float32) / 24.0     # days

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, i):
        return voyage_features(self.texts[i]), self.targets[i]


class BatchIterator:
    """Shuffling mini-batch iterator (no DataLoader: the features are tiny vectors)."""

    def __init__(self, dataset, batch_size, shuffle=True, drop_last=True, seed=0):
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        n = len(self.dataset)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        order = self.rng.permutation(len(self.dataset)) if self.shuffle else np.arange(len(self.dataset))
        for b in range(len(self)):
            idx = order[b * self.batch_size:(b + 1) * self.batch_size]
            feats, targets = zip(*(self.dataset[int(i)] for i in idx))
            yield torch.from_numpy(np.stack(feats)), torch.from_numpy(np.array(targets)).unsqueeze(1)
