import numpy as np
import torch
from torch.utils.data import Dataset, Sampler


class PoseSequenceDataset(Dataset):
    def __init__(self, seqs, labels, scale_jitter=0.1):
        self.seqs, self.labels, self.scale_jitter = seqs, labels, scale_jitter

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, idx):
        kps = self.seqs[idx].copy()
        # camera zoom augmentation around the image centre
        s = np.float32(1.0 + self.scale_jitter * (2.0 * torch.rand(1).item() - 1.0))
        kps[..., :2] = (kps[..., :2] - np.float32(320.0)) * s + np.float32(320.0)
        return {"keypoints": kps, "label": self.labels[idx]}


class BucketBatchSampler(Sampler):
    """Shuffle, then sort pools of `pool_factor` batches by length so batches pad little."""

    def __init__(self, lengths, batch_size, pool_factor=4, seed=0, drop_last=True):
        self.lengths, self.batch_size = lengths, batch_size
        self.pool = batch_size * pool_factor
        self.drop_last = drop_last
        self.generator = torch.Generator().manual_seed(seed)

    def __iter__(self):
        perm = torch.randperm(len(self.lengths), generator=self.generator).tolist()
        batches = []
        for p in range(0, len(perm), self.pool):
            pool = sorted(perm[p:p + self.pool], key=lambda i: self.lengths[i])
            for b in range(0, len(pool), self.batch_size):
                batch = pool[b:b + self.batch_size]
                if len(batch) == self.batch_size or not self.drop_last:
                    batches.append(batch)
        order = torch.randperm(len(batches), generator=self.generator).tolist()
        for i in order:
            yield batches[i]

    def __len__(self):
        return len(self.lengths) // self.batch_size
