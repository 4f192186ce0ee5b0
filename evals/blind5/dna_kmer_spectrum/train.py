#!/usr/bin/env python
"""Promoter-family classification from k-mer spectra (bag of k-mers + GC content).

Config handling follows the timm recipe: a YAML file sets the argparse defaults, then the
command line can still override any of them.
"""
import argparse
import itertools
import random

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter

config_parser = argparse.ArgumentParser(add_help=False)
config_parser.add_argument("-c", "--config", default="", type=str, metavar="FILE")

parser = argparse.ArgumentParser(description="k-mer spectrum promoter classifier")
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--num-seqs", dest="num_seqs", type=int, default=1000)
parser.add_argument("--seq-min", dest="seq_min", type=int, default=300)
parser.add_argument("--seq-max", dest="seq_max", type=int, default=500)
parser.add_argument("--k", type=int, default=4)
parser.add_argument("--rc-prob", dest="rc_prob", type=float, default=0.5)
parser.add_argument("--batch-size", dest="batch_size", type=int, default=32)
parser.add_argument("--epochs", type=int, default=2)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--hidden", type=int, default=32)
parser.add_argument("--workers", type=int, default=0)


def parse_args():
    args_config, remaining = config_parser.parse_known_args()
    if args_config.config:
        with open(args_config.config, "r") as f:
            parser.set_defaults(**yaml.safe_load(f))
    return parser.parse_args(remaining)


BASES = "ACGT"
COMPLEMENT = {"A": "T", "C": "G", "G": "C", "T": "A"}
FAMILIES = ["housekeeping", "tissue_specific", "bidirectional", "cpg_poor"]
MOTIFS = {
    0: ["TATAAAAG", "GGGCGGGG"],
    1: ["CAGCTGTT", "TGACTCAT"],
    2: ["CCAATCAG", "GATAAGGC"],
    3: ["TTAATTAA", "ATGCAAAT"],
}
GC_BIAS = [0.56, 0.48, 0.52, 0.40]


def make_sequences(n, lo, hi, seed):
    rng = random.Random(seed)
    seqs, labels = [], []
    for i in range(n):
        fam = i % len(FAMILIES)
        length = rng.randint(lo, hi)
        gc = GC_BIAS[fam] + rng.uniform(-0.04, 0.04)
        weights = [(1 - gc) / 2, gc / 2, gc / 2, (1 - gc) / 2]
        seq = rng.choices(BASES, weights=weights, k=length)
        for _ in range(rng.randint(3, 6)):
            motif = rng.choice(MOTIFS[fam])
            pos = rng.randrange(0, length - len(motif))
            seq[pos:pos + len(motif)] = motif
        if rng.random() < 0.3:  # assembly gaps
            pos = rng.randrange(0, length - 8)
            run = rng.randint(1, 6)
            seq[pos:pos + run] = "N" * run
        seqs.append("".join(seq))
        labels.append(fam)
    order = list(range(n))
    rng.shuffle(order)
    return [seqs[i] for i in order], [labels[i] for i in order]


def build_kmer_index(k):
    return {"".join(p): i for i, p in enumerate(itertools.product(BASES, repeat=k))}


def reverse_complement(seq):
    return "".join(COMPLEMENT.get(b, "N") for b in reversed(seq))


def kmer_spectrum(seq, k, index):
    """Relative k-mer frequencies; k-mers that touch an N are skipped."""
    counts = [0] * len(index)
    i = 0
    last = len(seq) - k + 1
    while i < last:
        j = index.get(seq[i:i + k])
        if j is not None:
            counts[j] += 1
        i += 1
    total = sum(counts)
    if not total:
        return [0.0] * len(index)
    return [c / total for c in counts]


def gc_content(seq):
    called = sum(1 for b in seq if b != "N")
    return sum(1 for b in seq if b in "GC") / called if called else 0.0


class PromoterKmers(Dataset):
    def __init__(self, args):
        self.seqs, self.labels = make_sequences(args.num_seqs, args.seq_min, args.seq_max, args.seed)
        self.k = args.k
        self.index = build_kmer_index(args.k)
        self.rc_prob = args.rc_prob
        self.rng = random.Random(args.seed + 7)

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, idx):
        seq = self.seqs[idx]
        if self.rng.random() < self.rc_prob:
            seq = reverse_complement(seq)
        spectrum = kmer_spectrum(seq, self.k, self.index)
        x = torch.tensor(spectrum + [gc_content(seq)], dtype=torch.float32)
        return x, self.labels[idx]


class SpectrumMLP(nn.Module):
    def __init__(self, in_dim, hidden, n_classes):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.ReLU(), nn.Dropout(0.1),
            nn.Linear(hidden, n_classes))

    def forward(self, x):
        # spectra are tiny frequencies: rescale so the expected value of a k-mer is ~1
        return self.net(x * x.new_tensor(float(x.shape[1] - 1)))


def main():
    args = parse_args()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    dataset = PromoterKmers(args)
    g = torch.Generator()
    g.manual_seed(args.seed)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, drop_last=True,
                        num_workers=args.workers, generator=g)
    model = SpectrumMLP(4 ** args.k + 1, args.hidden, len(FAMILIES))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    criterion = nn.CrossEntropyLoss()
    meter = Meter()

    epoch_loss, epoch_acc = [], []
    for epoch in range(args.epochs):
        model.train()
        running, correct, seen = 0.0, 0, 0
        for step, (x, y) in enumerate(loader):
            meter.batch((x, y))
            logits = model(x)
            loss = criterion(logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            running += loss.item() * y.shape[0]
            correct += int((logits.argmax(1) == y).sum())
            seen += y.shape[0]
            if meter.done():
                break
        epoch_loss.append(running / seen)
        epoch_acc.append(correct / seen)
        print(f"epoch {epoch}: loss {epoch_loss[-1]:.4f} acc {epoch_acc[-1]:.3f}")
        if meter.done():
            break
    meter.report(extra={"epoch_loss": epoch_loss, "epoch_acc": epoch_acc})


if __name__ == "__main__":
    main()
