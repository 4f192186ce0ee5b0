import numpy as np
import torch
from torch.utils.data import Dataset

from .sim import expose, make_scene


class ExposureDataset(Dataset):
    """Each item is a fresh simulated exposure of one of the scenes, reduced by `transform`."""

    def __init__(self, cfg, masters, transform, rng):
        self.cfg = cfg
        self.masters = masters
        self.transform = transform
        self.rng = rng
        lo, hi = cfg["sources_per_scene"]
        self.scenes = [make_scene(cfg["frame_size"], lo, hi, rng) for _ in range(cfg["num_scenes"])]

    def __len__(self):
        return self.cfg["exposures_per_epoch"]

    def __getitem__(self, idx):
        sky, sources = self.scenes[idx % len(self.scenes)]
        t_lo, t_hi = self.cfg["exptime"]
        exptime = float(self.rng.uniform(t_lo, t_hi))
        raw, n_hits = expose(sky, self.masters, exptime, self.cfg["gain"], self.cfg["read_noise"],
                             self.cfg["cosmic_rate"], self.rng)
        sample = {"raw": raw, "exptime": exptime, "sources": sources, "n_hits": n_hits}
        return self.transform(sample)


def collate_cutouts(samples):
    stamps = torch.stack([s["stamp"] for s in samples])
    labels = torch.tensor([s["label"] for s in samples], dtype=torch.long)
    return stamps, labels, [s["n_cr"] for s in samples]
