import torch
from torch.utils.data import Dataset

from .archive import build_mbox, split_mbox
from .features import message_features


class MboxFolderDataset(Dataset):
    def __init__(self, cfg):
        a, f = cfg["archive"], cfg["features"]
        blob, self.labels = build_mbox(a["messages"], a["min_body_lines"], a["max_body_lines"],
                                       cfg["experiment"]["seed"])
        self.raw = split_mbox(blob)
        assert len(self.raw) == len(self.labels)
        self.hash_dim = f["hash_dim"]
        self.max_hops = f["max_received_hops"]

    def __len__(self):
        return len(self.raw)

    def __getitem__(self, i):
        x = message_features(self.raw[i], self.hash_dim, self.max_hops)
        return torch.from_numpy(x), self.labels[i]
