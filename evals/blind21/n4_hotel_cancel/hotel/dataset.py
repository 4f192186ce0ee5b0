import torch
from torch.utils.data import Dataset

from .features import BookingFeaturizer


class HotelBookingDataset(Dataset):
    def __init__(self, rows, indices):
        self.rows = rows
        self.indices = indices
        self.featurize = BookingFeaturizer(rows)

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        row = self.rows[self.indices[i]]
        numeric, cats = self.featurize(row)
        return {
            "numeric": torch.tensor(numeric, dtype=torch.float32),
            "categorical": torch.tensor(cats, dtype=torch.long),
            "label": torch.tensor(float(row["is_canceled"])),
        }
