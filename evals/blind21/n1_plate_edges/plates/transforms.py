"""torchvision-style transforms for plate crops (numpy float64 HxW in, feature tensor out)."""
import math

import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img, rng):
        for t in self.transforms:
            img = t(img, rng)
        return img

    def __repr__(self):
        body = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n{body}\n)"


class RandomBrightnessContrast:
    def __init__(self, brightness=0.1, contrast=0.1):
        self.brightness = brightness
        self.contrast = contrast

    def __call__(self, img, rng):
        b = rng.uniform(-self.brightness, self.brightness)
        c = rng.uniform(1.0 - self.contrast, 1.0 + self.contrast)
        mean = img.mean()
        return np.clip((img - mean) * c + mean + b, 0.0, 1.0)

    def __repr__(self):
        return f"RandomBrightnessContrast(brightness={self.brightness}, contrast={self.contrast})"


class GaussianNoise:
    def __init__(self, std=0.02):
        self.std = std

    def __call__(self, img, rng):
        return img + rng.normal(0.0, self.std, size=img.shape)

    def __repr__(self):
        return f"GaussianNoise(std={self.std})"


def sobel_magnitude(img):
    """3x3 Sobel gradient magnitude; the one-pixel border stays 0."""
    h, w = img.shape
    out = np.zeros((h, w), dtype=np.float64)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            gx = (img[y - 1, x + 1] + 2.0 * img[y, x + 1] + img[y + 1, x + 1]) \
                - (img[y - 1, x - 1] + 2.0 * img[y, x - 1] + img[y + 1, x - 1])
            gy = (img[y + 1, x - 1] + 2.0 * img[y + 1, x] + img[y + 1, x + 1]) \
                - (img[y - 1, x - 1] + 2.0 * img[y - 1, x] + img[y - 1, x + 1])
            out[y, x] = math.sqrt(gx * gx + gy * gy)
    return out


def column_projection(grid):
    h, w = len(grid), len(grid[0])
    return [sum(grid[y][x] for y in range(h)) / h for x in range(w)]


def row_projection(grid):
    return [sum(row) / len(row) for row in grid]


def gap_profile(img, threshold, window):
    """Smoothed indicator of character gaps: columns whose darkness stays under `threshold`."""
    h, w = img.shape
    rows = img.tolist()
    darkness = [1.0 - sum(rows[y][x] for y in range(h)) / h for x in range(w)]
    dark_max = max(darkness)
    gaps = [1.0 if d < threshold * dark_max else 0.0 for d in darkness]
    prof = []
    for x in range(w):
        lo, hi = max(0, x - window), min(w, x + window + 1)
        prof.append(sum(gaps[lo:hi]) / (hi - lo))
    runs, inside = 0, False
    for g in gaps:
        if g == 0.0 and not inside:
            runs += 1
        inside = g == 0.0
    return prof, runs


class EdgeProjectionFeatures:
    """Sobel edges -> column/row projections, plus the character-gap profile of the intensities."""

    def __init__(self, gap_threshold=0.2, gap_window=2):
        self.gap_threshold = gap_threshold
        self.gap_window = gap_window

    def __call__(self, img, rng):
        edges = sobel_magnitude(img).tolist()
        cols = column_projection(edges)
        rows = row_projection(edges)
        prof, runs = gap_profile(img, self.gap_threshold, self.gap_window)
        w = len(cols)
        stats = [max(cols), sum(cols) / w, max(rows), runs / 10.0]
        return torch.tensor(cols + rows + prof + stats, dtype=torch.float32)

    def __repr__(self):
        return f"EdgeProjectionFeatures(gap_threshold={self.gap_threshold}, gap_window={self.gap_window})"


def build_transforms(cfg):
    aug, feat = cfg["augment"], cfg["features"]
    return Compose([
        RandomBrightnessContrast(aug["brightness"], aug["contrast"]),
        GaussianNoise(aug["noise_std"]),
        EdgeProjectionFeatures(feat["gap_threshold"], feat["gap_window"]),
    ])
