import numpy as np
import torch
from torch.utils.data import Dataset

from .gcode import interpret


class GCodeDataset(Dataset):
    """Raw program text in, (segment features, mask, log cycle time) out."""

    def __init__(self, programs, machine):
        self.programs = programs
        self.machine = machine
        self.max_segments = machine["max_segments"]

    def __len__(self):
        return len(self.programs)

    def _encode(self, program):
        segs, total = interpret(program, self.machine)
        feats = np.zeros((self.max_segments, 10), dtype=np.float32)
        keep = segs[: self.max_segments]
        for i, (kind, dx, dy, dz, length, t) in enumerate(keep):
            feats[i, kind] = 1.0
            feats[i, 6:] = (dx / 50.0, dy / 50.0, dz / 5.0, length / 50.0)
        return feats, len(keep), np.log(total)

    def __getitem__(self, i):
        feats, n, target = self._encode(self.programs[i])
        return torch.from_numpy(feats), torch.tensor(n), torch.tensor(target, dtype=torch.float32)
