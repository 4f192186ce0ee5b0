import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from .features import log_features
from .parsing import parse_obd_csv
from .synth import make_fleet


class TripLogDataset(Dataset):
    """One raw CSV export per vehicle; each item is a random window of `window` rows."""

    def __init__(self, logs, scores, window):
        self.logs, self.scores, self.window = logs, scores, window

    def __len__(self):
        return len(self.logs)

    def __getitem__(self, idx):
        cols = parse_obd_csv(self.logs[idx])
        n = len(cols["timestamp"])
        start = int(torch.randint(0, n - self.window + 1, (1,)))
        cols = {k: v[start:start + self.window] for k, v in cols.items()}
        feats = torch.tensor(log_features(cols), dtype=torch.float32)
        return feats, torch.tensor(self.scores[idx] / 100.0)


class OBDDataModule:
    def __init__(self, n_vehicles, rows, window, batch_size, seed):
        self.n_vehicles, self.rows, self.window = n_vehicles, rows, window
        self.batch_size, self.seed = batch_size, seed

    def setup(self):
        logs, scores = make_fleet(self.n_vehicles, self.rows, self.seed)
        self.train_set = TripLogDataset(logs, scores, self.window)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True, num_workers=0,
                          drop_last=True)
