"""Simulated short reads (FASTQ-like records) and the batch encoder used by the loader."""
import itertools
from collections import namedtuple

import numpy as np
import torch
from torch.utils.data import Dataset

Read = namedtuple("Read", ["name", "seq", "qual", "label"])

BASES = "ACGT"
BASE_INDEX = {b: i for i, b in enumerate(BASES)}
COMPLEMENT = str.maketrans("ACGTN", "TGCAN")
PAD_ID, UNK_ID = 0, 1


def reverse_complement(seq):
    return seq.translate(COMPLEMENT)[::-1]


def canonical_kmer_vocab(k):
    """Canonical k-mers (lexicographically smaller of k-mer / reverse complement) -> ids from 2."""
    canon = set()
    for tup in itertools.product(BASES, repeat=k):
        kmer = "".join(tup)
        rc = reverse_complement(kmer)
        canon.add(min(kmer, rc))
    return {kmer: i + 2 for i, kmer in enumerate(sorted(canon))}


def simulate_reads(cfg, seed):
    rng = np.random.default_rng(seed)
    reads = []
    lo, hi = cfg["read_length"]
    for sp in range(cfg["n_species"]):
        gc = 0.35 + 0.3 * sp / max(1, cfg["n_species"] - 1)
        probs = [(1 - gc) / 2, gc / 2, gc / 2, (1 - gc) / 2]
        genome = rng.choice(list(BASES), size=cfg["genome_length"], p=probs)
        motif = "".join(rng.choice(list(BASES), size=8))
        for pos in rng.integers(0, cfg["genome_length"] - 8, size=cfg["genome_length"] // 150):
            genome[pos:pos + 8] = list(motif)
        genome = "".join(genome)
        for r in range(cfg["reads_per_species"]):
            length = int(rng.integers(lo, hi + 1))
            start = int(rng.integers(0, len(genome) - length))
            seq = list(genome[start:start + length])
            # Phred scores decay along the read
            q = np.clip(rng.normal(36 - 14 * np.arange(length) / length, 5.0), 2, 41).astype(int)
            for i in np.nonzero(rng.random(length) < cfg["error_rate"])[0]:
                seq[i] = BASES[int(rng.integers(0, 4))]
            for i in np.nonzero(rng.random(length) < cfg["n_rate"])[0]:
                seq[i] = "N"
                q[i] = 2
            seq = "".join(seq)
            if rng.random() < 0.5:
                seq = reverse_complement(seq)
                q = q[::-1]
            qual = "".join(chr(33 + int(v)) for v in q)
            reads.append(Read(f"sp{sp}_r{r}", seq, qual, sp))
    return reads


class ReadDataset(Dataset):
    def __init__(self, reads):
        self.reads = reads

    def __len__(self):
        return len(self.reads)

    def __getitem__(self, i):
        return self.reads[i]


class ReadCollator:
    """Random strand flip, quality-masked one-hot (4 x L) and canonical k-mer ids, padded to the batch."""

    def __init__(self, k, min_q, rc_prob, seed):
        self.k = k
        self.min_q = min_q
        self.rc_prob = rc_prob
        self.vocab = canonical_kmer_vocab(k)
        self.gen = torch.Generator().manual_seed(seed)

    def encode_onehot(self, seq, qual, length):
        rows = [[], [], [], []]
        for base, q in zip(seq, qual):
            if base == "N" or ord(q) - 33 < self.min_q:
                for ch in range(4):
                    rows[ch].append(0.25)
            else:
                idx = BASE_INDEX[base]
                for ch in range(4):
                    rows[ch].append(1.0 if ch == idx else 0.0)
        for ch in range(4):
            rows[ch].extend([0.0] * (length - len(seq)))
        return rows

    def encode_kmers(self, seq, length):
        ids = []
        for i in range(len(seq) - self.k + 1):
            kmer = seq[i:i + self.k]
            if "N" in kmer:
                ids.append(UNK_ID)
                continue
            rc = reverse_complement(kmer)
            ids.append(self.vocab[kmer if kmer <= rc else rc])
        ids.extend([PAD_ID] * (length - self.k + 1 - len(ids)))
        return ids

    def __call__(self, batch):
        flips = (torch.rand(len(batch), generator=self.gen) < self.rc_prob).tolist()
        max_len = max(len(r.seq) for r in batch)
        onehot, kmers, lengths, labels = [], [], [], []
        for read, flip in zip(batch, flips):
            seq, qual = read.seq, read.qual
            if flip:
                seq, qual = reverse_complement(seq), qual[::-1]
            onehot.append(self.encode_onehot(seq, qual, max_len))
            kmers.append(self.encode_kmers(seq, max_len))
            lengths.append(len(seq))
            labels.append(read.label)
        return (torch.tensor(onehot), torch.tensor(kmers), torch.tensor(lengths), torch.tensor(labels))
