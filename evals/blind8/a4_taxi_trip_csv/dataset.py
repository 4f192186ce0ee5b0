import torch
from torch.utils.data import Dataset

from features import column_stats, encode, parse_line, raw_features


class TripCSVDataset(Dataset):
    """Keeps the month's CSV lines in memory and turns one line into (features, target) on access."""

    def __init__(self, lines, zones, stats=None, stats_sample=2000):
        self.header, self.lines = lines[0], lines[1:]
        self.zones = zones
        if stats is None:
            sample = [raw_features(parse_line(l), zones)[0]["numeric"] for l in self.lines[:stats_sample]]
            stats = column_stats(sample)
        self.stats = stats

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        row = parse_line(self.lines[i])
        feats, target = raw_features(row, self.zones)
        x = torch.tensor(encode(feats, self.stats), dtype=torch.float32)
        y = torch.tensor([target], dtype=torch.float32)
        return x, y
