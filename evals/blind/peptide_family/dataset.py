import random

from torch.utils.data import Dataset


def sample_family_sequences(cfg, seed):
    """Each family has its own motif set and residue preferences (seeded)."""
    rnd = random.Random(seed)
    A = cfg["alphabet"]
    motifs = [[[rnd.randrange(2, A) for _ in range(rnd.randint(4, 7))] for _ in range(3)]
              for _ in range(cfg["n_families"])]
    prefs = [[rnd.random() ** 2 for _ in range(A)] for _ in range(cfg["n_families"])]
    seqs, fams = [], []
    for _ in range(cfg["n_sequences"]):
        fam = rnd.randrange(cfg["n_families"])
        n = rnd.randint(cfg["min_len"], cfg["max_len"])
        seq = rnd.choices(range(2, A), weights=prefs[fam][2:], k=n)
        for m in motifs[fam]:
            if rnd.random() < 0.7 and n > len(m):
                at = rnd.randrange(0, n - len(m))
                seq[at:at + len(m)] = m
        seqs.append(seq)
        fams.append(fam)
    return seqs, fams


class PeptideSet(Dataset):
    """Items are plain Python: {'tokens': [int, ...], 'family': int}."""

    def __init__(self, seqs, fams):
        self.seqs, self.fams = seqs, fams

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, i):
        return {"tokens": self.seqs[i], "family": self.fams[i]}
