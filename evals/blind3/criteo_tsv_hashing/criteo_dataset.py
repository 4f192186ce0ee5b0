import hashlib
import math

import torch
from torch.utils.data import Dataset

from make_sample import N_DENSE

# wide-and-deep style crossed features (pairs of categorical columns, 0-based)
CROSSES = [(0, 1), (0, 2), (1, 2), (2, 3), (3, 4), (4, 5)]


def hash_feature(field_idx, value, buckets):
    key = f"C{field_idx + 1}={value}".encode("utf-8")
    return int(hashlib.md5(key).hexdigest()[:8], 16) % buckets


def parse_line(line, buckets):
    fields = line.rstrip("\n").split("\t")
    label = float(fields[0])
    dense = []
    for v in fields[1:1 + N_DENSE]:
        dense.append(math.log1p(max(int(v), 0)) if v != "" else 0.0)
    raw = [v if v != "" else "<missing>" for v in fields[1 + N_DENSE:]]
    cats = [hash_feature(j, v, buckets) for j, v in enumerate(raw)]
    for a, b in CROSSES:
        cats.append(hash_feature(100 * (a + 1) + b, raw[a] + "_" + raw[b], buckets))
    return label, dense, cats


class CriteoTSV(Dataset):
    """Criteo display-ads lines kept as raw text; each sample is parsed and hashed when requested."""

    def __init__(self, path, buckets):
        with open(path) as fh:
            self.lines = fh.readlines()
        self.buckets = buckets

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, idx):
        label, dense, cats = parse_line(self.lines[idx], self.buckets)
        return (torch.tensor(dense, dtype=torch.float32), torch.tensor(cats, dtype=torch.long),
                torch.tensor(label, dtype=torch.float32))

