"""Map-style dataset of source cutouts read from the raw frames."""
from torch.utils.data import Dataset


class CutoutDataset(Dataset):
    def __init__(self, frames, catalogue, size, transform=None):
        self.frames = frames
        self.size = size
        half = size // 2 + 1  # one extra pixel for the neighbourhood filter
        n = frames[0].shape[0]
        self.items = [(e, y - half, x - half, label) for e, y, x, label in catalogue
                      if y - half >= 0 and x - half >= 0 and y + half <= n and x + half <= n]
        self.transform = transform

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        e, y0, x0, label = self.items[idx]
        win = self.size + 2
        sample = {"raw": self.frames[e][y0:y0 + win, x0:x0 + win], "y0": y0, "x0": x0, "label": label}
        return self.transform(sample) if self.transform is not None else sample
