import torch
from torch.utils.data import Sampler


class BucketBatchSampler(Sampler):
    """Shuffle, sort chunks of `batch_size * bucket_size_multiplier` by length, cut batches, shuffle batches."""

    def __init__(self, lengths, batch_size, bucket_size_multiplier=100, generator=None):
        self.lengths = lengths
        self.batch_size = batch_size
        self.bucket = batch_size * bucket_size_multiplier
        self.generator = generator

    def __iter__(self):
        perm = torch.randperm(len(self.lengths), generator=self.generator).tolist()
        batches = []
        for start in range(0, len(perm), self.bucket):
            chunk = sorted(perm[start:start + self.bucket], key=lambda i: self.lengths[i])
            batches.extend(chunk[i:i + self.batch_size] for i in range(0, len(chunk), self.batch_size))
        for b in torch.randperm(len(batches), generator=self.generator).tolist():
            yield batches[b]

    def __len__(self):
        return -(-len(self.lengths) // self.batch_size)
