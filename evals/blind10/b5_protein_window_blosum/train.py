#!/usr/bin/env python
"""Per-residue 3-state secondary-structure tagging from window profiles, BLOSUM62 rows and one-hot residues.

    python train.py --settings settings.py
"""
import argparse
import collections
import random
import runpy

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, RandomSampler

import evalkit

AMINO = "ARNDCQEGHILKMFPSTWYV"
SS_CLASSES = {"H": 0, "E": 1, "C": 2}
BLOSUM62_TEXT = """
   A  R  N  D  C  Q  E  G  H  I  L  K  M  F  P  S  T  W  Y  V  B  Z  X  *
A  4 -1 -2 -2  0 -1 -1  0 -2 -1 -1 -1 -1 -2 -1  1  0 -3 -2  0 -2 -1  0 -4
R -1  5  0 -2 -3  1  0 -2  0 -3 -2  2 -1 -3 -2 -1 -1 -3 -2 -3 -1  0 -1 -4
N -2  0  6  1 -3  0  0  0  1 -3 -3  0 -2 -3 -2  1  0 -4 -2 -3  3  0 -1 -4
D -2 -2  1  6 -3  0  2 -1 -1 -3 -4 -1 -3 -3 -1  0 -1 -4 -3 -3  4  1 -1 -4
C  0 -3 -3 -3  9 -3 -4 -3 -3 -1 -1 -3 -1 -2 -3 -1 -1 -2 -2 -1 -3 -3 -2 -4
Q -1  1  0  0 -3  5  2 -2  0 -3 -2  1  0 -3 -1  0 -1 -2 -1 -2  0  3 -1 -4
E -1  0  0  2 -4  2  5 -2  0 -3 -3  1 -2 -3 -1  0 -1 -3 -2 -2  1  4 -1 -4
G  0 -2  0 -1 -3 -2 -2  6 -2 -4 -4 -2 -3 -3 -2  0 -2 -2 -3 -3 -1 -2 -1 -4
H -2  0  1 -1 -3  0  0 -2  8 -3 -3 -1 -2 -1 -2 -1 -2 -2  2 -3  0  0 -1 -4
I -1 -3 -3 -3 -1 -3 -3 -4 -3  4  2 -3  1  0 -3 -2 -1 -3 -1  3 -3 -3 -1 -4
L -1 -2 -3 -4 -1 -2 -3 -4 -3  2  4 -2  2  0 -3 -2 -1 -2 -1  1 -4 -3 -1 -4
K -1  2  0 -1 -3  1  1 -2 -1 -3 -2  5 -1 -3 -1  0 -1 -3 -2 -2  0  1 -1 -4
M -1 -1 -2 -3 -1  0 -2 -3 -2  1  2 -1  5  0 -2 -1 -1 -1 -1  1 -3 -1 -1 -4
F -2 -3 -3 -3 -2 -3 -3 -3 -1  0  0 -3  0  6 -4 -2 -2  1  3 -1 -3 -3 -1 -4
P -1 -2 -2 -1 -3 -1 -1 -2 -2 -3 -3 -1 -2 -4  7 -1 -1 -4 -3 -2 -2 -1 -2 -4
S  1 -1  1  0 -1  0  0  0 -1 -2 -2  0 -1 -2 -1  4  1 -3 -2 -2  0  0  0 -4
T  0 -1  0 -1 -1 -1 -1 -2 -2 -1 -1 -1 -1 -2 -1  1  5 -2 -2  0 -1 -1  0 -4
W -3 -3 -4 -4 -2 -2 -3 -2 -2 -3 -2 -3 -1  1 -4 -3 -2 11  2 -3 -4 -3 -2 -4
Y -2 -2 -2 -3 -2 -1 -2 -3  2 -1 -1 -2 -1  3 -3 -2 -2  2  7 -1 -3 -2 -1 -4
V  0 -3 -3 -3 -1 -2 -2 -3 -3  3  1 -2  1 -1 -2 -2  0 -3 -1  4 -3 -2 -1 -4
B -2 -1  3  4 -3  0  1 -1  0 -3 -4  0 -3 -3 -2  0 -1 -4 -3 -3  4  1 -1 -4
Z -1  0  0  1 -3  3  4 -2  0 -3 -3  1 -1 -3 -1  0 -1 -3 -2 -2  1  4 -1 -4
X  0 -1 -1 -1 -2 -1 -1 -1 -1 -1 -1 -1 -1 -1 -2  0  0 -2 -1 -1 -1 -1 -1 -4
* -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4  1
"""


def parse_matrix(text):
    """NCBI matrix text -> {(row, col): score}."""
    lines = [ln for ln in text.strip("\n").splitlines() if ln.strip() and not ln.startswith("#")]
    cols = lines[0].split()
    table = {}
    for ln in lines[1:]:
        fields = ln.split()
        for col, value in zip(cols, fields[1:]):
            table[(fields[0], col)] = int(value)
    return table


BLOSUM62 = parse_matrix(BLOSUM62_TEXT)
Batch = collections.namedtuple("Batch", ["features", "labels", "mask", "lengths"])

# ---------------------------------------------------------------- synthetic UniProt-like records
HELIX, STRAND, COIL = "AAELLKKMQERA", "VVIIYFTWVTIC", "GGPNDSSTGKPD"


def synth_records(n, min_len, max_len, seed):
    rng = random.Random(seed)
    records = []
    for i in range(n):
        length = rng.randint(min_len, max_len)
        seq, ss = [], []
        while len(seq) < length:
            state = rng.choices("HEC", weights=(0.35, 0.2, 0.45))[0]
            pool = {"H": HELIX, "E": STRAND, "C": COIL}[state]
            seg = rng.randint(4, 18) if state != "C" else rng.randint(2, 10)
            for _ in range(seg):
                aa = rng.choice(pool) if rng.random() < 0.7 else rng.choice(AMINO)
                if rng.random() < 0.004:
                    aa = rng.choice("XBZU")
                seq.append(aa)
                ss.append(state)
        seq, ss = "".join(seq[:length]), "".join(ss[:length])
        acc = f"{'PQO'[i % 3]}{rng.randint(10000, 99999)}"
        body = "\n".join(seq[j:j + 60] for j in range(0, len(seq), 60))
        fasta = f">sp|{acc}|SYN{i}_HUMAN Synthetic protein {i} OS=Homo sapiens OX=9606 GN=SYN{i} PE=1 SV=1\n{body}\n"
        records.append((fasta, ss))
    return records


def read_fasta(text):
    header, *lines = text.strip().splitlines()
    return header[1:].split("|")[1], "".join(line.strip() for line in lines).upper()


# ---------------------------------------------------------------- features
def residue_features(seq, window, scale):
    """Per residue: composition of the (edge-clipped) window over the 20 amino acids, the residue's
    BLOSUM62 row against them (scaled), and a one-hot over the 20 + 'other'."""
    half = window // 2
    feats = []
    for i, res in enumerate(seq):
        win = seq[max(0, i - half):i + half + 1]
        counts = collections.Counter(win)
        profile = [counts.get(a, 0) / len(win) for a in AMINO]
        key = res if (res, "A") in BLOSUM62 else "X"
        if key == "U":
            key = "X"
        blosum = [BLOSUM62[(key, a)] / scale for a in AMINO]
        onehot = [1.0 if res == a else 0.0 for a in AMINO] + [0.0 if res in AMINO else 1.0]
        feats.append(profile + blosum + onehot)
    return feats


class ProteinSSDataset(Dataset):
    def __init__(self, records, crop, window, scale, seed):
        self.records = records
        self.crop = crop
        self.window = window
        self.scale = scale
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.records)

    def __getitems__(self, indices):
        feats, labels, lengths = [], [], []
        for idx in indices:
            fasta, ss = self.records[idx]
            _acc, seq = read_fasta(fasta)
            rows = residue_features(seq, self.window, self.scale)
            start = int(self.rng.integers(0, len(seq) - self.crop + 1)) if len(seq) > self.crop else 0
            rows = rows[start:start + self.crop]
            tags = [SS_CLASSES[s] for s in ss[start:start + self.crop]]
            pad = self.crop - len(rows)
            feats.append(rows + [[0.0] * len(rows[0])] * pad)
            labels.append(tags + [-100] * pad)
            lengths.append(len(tags))
        labels = torch.tensor(labels, dtype=torch.long)
        return Batch(torch.tensor(feats, dtype=torch.float32), labels, labels != -100,
                     torch.tensor(lengths, dtype=torch.long))


def passthrough(batch):
    return batch


class SSTagger(nn.Module):
    def __init__(self, in_dim, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(in_dim, hidden, 7, padding=3), nn.ReLU(),
                                 nn.Conv1d(hidden, hidden, 5, padding=2), nn.ReLU(),
                                 nn.Conv1d(hidden, 3, 1))

    def forward(self, x):
        return self.net(x.transpose(1, 2)).transpose(1, 2)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--settings", default="settings.py")
    args = ap.parse_args()
    s = runpy.run_path(args.settings)

    torch.set_num_threads(1)
    random.seed(s["SEED"])
    np.random.seed(s["SEED"])
    torch.manual_seed(s["SEED"])

    records = synth_records(s["N_PROTEINS"], s["MIN_LEN"], s["MAX_LEN"], s["SEED"])
    dataset = ProteinSSDataset(records, s["CROP"], s["WINDOW"], s["BLOSUM_SCALE"], s["SEED"] + 1)
    loader = DataLoader(dataset, batch_size=s["BATCH_SIZE"], collate_fn=passthrough,
                        sampler=RandomSampler(dataset, generator=torch.Generator().manual_seed(s["SEED"])),
                        num_workers=s["NUM_WORKERS"], drop_last=True)
    model = SSTagger(2 * len(AMINO) + len(AMINO) + 1)
    optim = torch.optim.Adam(model.parameters(), lr=s["LR"])
    criterion = nn.CrossEntropyLoss(ignore_index=-100)
    meter = evalkit.Meter()
    correct = total = 0
    for epoch in range(s["EPOCHS"]):
        for it, batch in enumerate(loader):
            meter.batch(batch)
            logits = model(batch.features)
            loss = criterion(logits.reshape(-1, 3), batch.labels.reshape(-1))
            optim.zero_grad()
            loss.backward()
            optim.step()
            meter.step(loss)
            pred = logits.argmax(-1)
            correct += int((pred == batch.labels)[batch.mask].sum())
            total += int(batch.mask.sum())
            if (it + 1) % s["LOG_EVERY"] == 0:
                print(f"epoch {epoch} it {it + 1} loss {loss.item():.4f} q3 {correct / total:.3f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"q3_correct": correct, "q3_total": total})


if __name__ == "__main__":
    main()
