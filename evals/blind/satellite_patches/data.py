import json
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class PatchStore(Dataset):
    """Reads each patch and its sidecar from disk when asked for it."""

    def __init__(self, root, n):
        self.root = root
        self.ids = [f"{i:05d}" for i in range(n)]

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, index):
        pid = self.ids[index]
        img = np.load(os.path.join(self.root, "img", pid + ".npy"))
        with open(os.path.join(self.root, "meta", pid + ".json")) as fh:
            meta = json.load(fh)
        # cloudy patches are dimmed by the provider; undo it
        img = img / (1.0 - meta["cloud"] * 0.5)
        return torch.from_numpy(img.astype(np.float32)), meta["label"]
