import numpy as np
from torch.utils.data import Dataset

from .alphabet import AMINO_ACIDS, GAP

_SYMBOLS = np.frombuffer((AMINO_ACIDS + GAP + "X").encode("ascii"), dtype=np.uint8)


class SyntheticMSADataset(Dataset):
    """Protein families as aligned FASTA rows (query first); family i is generated from seed (seed, i).

    Each sample: {"name", "msa": [str, ...] (all rows the same aligned length), "conserved": [0/1 per column]}.
    """

    def __init__(self, num_families, depth_range, length_range, seed=0):
        self.num_families = num_families
        self.depth_range = depth_range
        self.length_range = length_range
        self.seed = seed

    def __len__(self):
        return self.num_families

    def __getitem__(self, i):
        rng = np.random.default_rng([self.seed, i])
        depth = int(rng.integers(self.depth_range[0], self.depth_range[1] + 1))
        length = int(rng.integers(self.length_range[0], self.length_range[1] + 1))
        query = rng.integers(0, 20, size=length)
        conserved = rng.random(length) < 0.35
        mut_rate = np.where(conserved, 0.05, 0.45)
        rows = np.where(rng.random((depth, length)) < mut_rate, rng.integers(0, 20, size=(depth, length)), query)
        gaps = rng.random((depth, length)) < rng.uniform(0.02, 0.25, size=(depth, 1))
        rows = np.where(gaps, 20, rows)
        rows = np.where(rng.random((depth, length)) < 0.004, 21, rows)  # ambiguous residue X
        rows[0] = query
        text = _SYMBOLS[rows]
        msa = [text[d].tobytes().decode("ascii") for d in range(depth)]
        return {"name": f"fam{i:05d}", "msa": msa, "conserved": conserved.astype(int).tolist()}
