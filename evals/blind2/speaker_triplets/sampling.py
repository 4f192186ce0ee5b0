"""P x K batch sampler for metric learning: P speakers per batch, K utterances each."""
from collections import defaultdict

import torch
from torch.utils.data import Sampler


class PKBatchSampler(Sampler):
    def __init__(self, labels, p, k, seed):
        self.p, self.k = p, k
        self.seed = seed
        self.epoch = 0
        self.by_label = defaultdict(list)
        for idx, label in enumerate(labels):
            self.by_label[label].append(idx)
        self.label_set = sorted(self.by_label)

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return len(self.label_set) // self.p * 2

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed * 1000 + self.epoch)
        for _ in range(2):  # every speaker appears twice per epoch
            order = torch.randperm(len(self.label_set), generator=g).tolist()
            for start in range(0, len(order) - self.p + 1, self.p):
                batch = []
                for li in order[start:start + self.p]:
                    pool = self.by_label[self.label_set[li]]
                    pick = torch.randperm(len(pool), generator=g)[: self.k].tolist()
                    batch.extend(pool[j] for j in pick)
                yield batch
