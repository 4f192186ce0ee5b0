import torch
from torch.utils.data import Sampler


class LengthGroupedSampler(Sampler):
    """Shuffle, then sort each mega-batch by dialogue length (fewer padded turns per batch)."""

    def __init__(self, lengths, batch_size, mega_batch_mult=20, generator=None):
        self.lengths = lengths
        self.batch_size = batch_size
        self.mega = batch_size * mega_batch_mult
        self.generator = generator

    def __len__(self):
        return len(self.lengths)

    def __iter__(self):
        perm = torch.randperm(len(self.lengths), generator=self.generator).tolist()
        chunks = [perm[i:i + self.mega] for i in range(0, len(perm), self.mega)]
        return iter([i for chunk in chunks for i in sorted(chunk, key=lambda j: -self.lengths[j])])
