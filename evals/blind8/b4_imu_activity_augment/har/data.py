import numpy as np
import torch
from torch.utils.data import Dataset


class IMUWindows(Dataset):
    def __init__(self, x, y, transform, seed):
        self.x, self.y = x, y
        self.transform = transform
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        window = self.x[i].tolist()
        window = self.transform(window, self.rng)
        return {"signal": torch.tensor(window, dtype=torch.float32), "activity": int(self.y[i])}
