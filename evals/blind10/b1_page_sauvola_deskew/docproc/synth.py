"""Synthetic scanned pages: skewed text lines in one or two columns, uneven lighting, scanner noise."""
import numpy as np
from torch.utils.data import Dataset


def encode_pgm(gray, comment="synthetic scan"):
    h, w = gray.shape
    return f"P5\n# {comment}\n{w} {h}\n255\n".encode("ascii") + gray.tobytes()


def render_page(rng, size):
    columns = int(rng.integers(1, 3))
    skew = float(rng.uniform(-3.5, 3.5))
    paper = rng.uniform(170, 225)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    light = paper - rng.uniform(0, 40) * (xx / size) - rng.uniform(0, 30) * (yy / size) ** 2
    ink = np.zeros((size, size), dtype=bool)
    t = np.tan(np.radians(skew))
    pitch = int(rng.integers(7, 11))
    gutter = size // 2
    for base in range(6, size - 4, pitch):
        spans = [(4, size - 4)] if columns == 1 else [(4, gutter - 4), (gutter + 4, size - 4)]
        for x0, x1 in spans:
            x = x0
            while x < x1:
                word = int(rng.integers(3, 12))
                xe = min(x + word, x1)
                ink |= (xx >= x) & (xx < xe) & (np.abs(yy - (base + (xx - size / 2) * t)) < 2.0)
                x = xe + int(rng.integers(2, 5))
    gray = np.where(ink, rng.uniform(20, 90), light) + rng.normal(0, 9, (size, size))
    return np.clip(gray, 0, 255).astype(np.uint8), columns - 1


class ScannedPages(Dataset):
    """Map-style dataset of PGM-encoded page crops; label 0 = one column, 1 = two columns."""

    def __init__(self, n_pages, size, seed, transform=None):
        rng = np.random.default_rng(seed)
        self.records = []
        for i in range(n_pages):
            gray, label = render_page(rng, size)
            self.records.append({"pgm": encode_pgm(gray, f"page {i:05d}"), "label": label})
        self.transform = transform

    def __len__(self):
        return len(self.records)

    def __getitem__(self, idx):
        rec = self.records[idx]
        sample = {"pgm": rec["pgm"], "label": rec["label"]}
        return self.transform(sample) if self.transform is not None else sample
