import numpy as np
import torch
from torch.utils.data import Dataset, Sampler


class SyntheticDocuments(Dataset):
    """Pre-tokenised documents: a list of sentences (lists of token ids) and label paths."""

    def __init__(self, num_docs, vocab_size, taxonomy, max_labels, seed):
        self.num_docs = num_docs
        self.vocab_size = vocab_size
        self.seed = seed
        self.max_labels = max_labels
        self.candidates = [lab for lab in taxonomy.labels if lab.count(".") >= 2]   # depth 3-4 labels
        rng = np.random.default_rng(seed)
        self.num_sentences = rng.integers(3, 19, size=num_docs)

    def __len__(self):
        return self.num_docs

    def __getitem__(self, idx):
        rng = np.random.default_rng([self.seed, idx])
        n_sent = int(self.num_sentences[idx])
        lengths = rng.integers(4, 44, size=n_sent)
        topic = rng.integers(1, self.vocab_size - 200)
        sentences = [(topic + rng.integers(0, 200, size=n)).tolist() for n in lengths]
        k = int(rng.integers(1, self.max_labels + 1))
        picks = rng.choice(len(self.candidates), size=k, replace=False)
        return {"doc_id": idx, "sentences": sentences, "labels": [self.candidates[p] for p in picks]}


class LengthGroupedSampler(Sampler):
    """Shuffle, then sort mega-batches by length so batches need less padding (HF-style)."""

    def __init__(self, lengths, batch_size, generator, mega_batch_mult=8):
        self.lengths = list(lengths)
        self.batch_size = batch_size
        self.generator = generator
        self.mega = batch_size * mega_batch_mult

    def __len__(self):
        return len(self.lengths)

    def __iter__(self):
        order = torch.randperm(len(self.lengths), generator=self.generator).tolist()
        megabatches = [order[i:i + self.mega] for i in range(0, len(order), self.mega)]
        for mb in megabatches:
            yield from sorted(mb, key=lambda i: self.lengths[i], reverse=True)
