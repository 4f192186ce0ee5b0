import glob
import io
import os
import tarfile

import numpy as np
import torch
from torch.utils.data import Dataset


class WaferShards(Dataset):
    """Map-style view over tar shards; the index is (shard path, sample key)."""

    def __init__(self, shard_dir, crop, seed):
        self.index = []
        for path in sorted(glob.glob(os.path.join(shard_dir, "*.tar"))):
            with tarfile.open(path) as tf:
                keys = sorted({os.path.splitext(n)[0] for n in tf.getnames()})
            self.index.extend((path, k) for k in keys)
        self.crop = crop
        self.g = torch.Generator().manual_seed(seed)

    def __len__(self):
        return len(self.index)

    def load(self, i):
        path, key = self.index[i]
        with tarfile.open(path) as tf:
            wmap = np.load(io.BytesIO(tf.extractfile(f"{key}.npy").read()))
            label = int(tf.extractfile(f"{key}.cls").read().decode())
        return wmap, label

    def __getitem__(self, i):
        wmap, label = self.load(i)
        x = torch.from_numpy(wmap).long()
        onehot = torch.nn.functional.one_hot(x, 3).permute(2, 0, 1).float()
        top, left = torch.randint(0, wmap.shape[0] - self.crop + 1, (2,), generator=self.g).tolist()
        onehot = onehot[:, top:top + self.crop, left:left + self.crop]
        if torch.rand((), generator=self.g) < 0.5:
            onehot = onehot.flip(-1)
        return onehot, label
