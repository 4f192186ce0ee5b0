import json
import zlib

import torch
from torch.utils.data import Dataset, Sampler


class ManifestDataset(Dataset):
    """Items are looked up in the manifest; it is opened lazily, once per process
    (the way LMDB / HDF5 handles are opened after the DataLoader forks)."""

    def __init__(self, manifest_path, keys, feature_dim):
        self.manifest_path = manifest_path
        self.keys = keys
        self.feature_dim = feature_dim
        self._index = None

    def _open(self):
        with open(self.manifest_path) as fh:
            doc = json.load(fh)
        self._index = {it["key"]: it for it in doc["items"]}

    def __len__(self):
        return len(self.keys)

    def __getitem__(self, i):
        if self._index is None:
            self._open()
        item = self._index[self.keys[i]]
        seed = zlib.crc32(item["key"].encode())
        g = torch.Generator().manual_seed(seed)
        x = torch.randn(self.feature_dim, generator=g)
        x[item["cls"] * 8:(item["cls"] + 1) * 8] += 1.5
        x *= 0.5 + item["q"]
        return x, item["cls"]


class EpochShuffle(Sampler):
    """Shuffles with seed + epoch (like DistributedSampler.set_epoch)."""

    def __init__(self, n, seed):
        self.n, self.seed, self.epoch = n, seed, 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed + self.epoch)
        return iter(torch.randperm(self.n, generator=g).tolist())

    def __len__(self):
        return self.n
