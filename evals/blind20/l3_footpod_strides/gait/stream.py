import numpy as np
import torch
from torch.utils.data import IterableDataset

from .signals import render_window, session_zone


class FootPodStream(IterableDataset):
    """Streams consecutive windows of recorded sessions, sessions in a seeded random order.

    The recordings are held in memory as float32 (3, n) arrays per window, the way the
    pod's export stores them.
    """

    def __init__(self, num_sessions, windows_per_session, fs, window_s, extractor, seed=0):
        self.extractor = extractor
        self.seed = seed
        self.epoch = 0
        self.sessions = []
        for session in range(num_sessions):
            zone = session_zone(seed, session)
            windows = [render_window(seed, session, w, zone, fs, window_s).astype(np.float32)
                       for w in range(windows_per_session)]
            self.sessions.append((zone, windows))

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return sum(len(windows) for _, windows in self.sessions)

    def __iter__(self):
        order = np.random.default_rng([self.seed, self.epoch]).permutation(len(self.sessions))
        for session in order.tolist():
            zone, windows = self.sessions[session]
            for acc in windows:
                feats = self.extractor(acc)
                yield {
                    "trace": torch.from_numpy(feats["trace"]),
                    "gait": torch.from_numpy(feats["gait"]),
                    "num_steps": feats["num_steps"],
                    "zone": zone,
                }
