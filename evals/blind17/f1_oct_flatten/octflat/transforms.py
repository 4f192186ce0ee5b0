"""torchvision-style transforms for OCT B-scans (depth x width, one channel).

Each transform takes and returns a sample dict: ``image`` (H x W array), ``label`` and,
once DetectLayer has run, ``layer`` (one row index per A-scan column).
"""
import math

import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample

    def __repr__(self):
        body = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n{body}\n)"


class ToFloat:
    """uint8 device counts -> float32 reflectivity in [0, 1]."""

    def __call__(self, sample):
        sample["image"] = sample["image"].astype(np.float32) / np.float32(255.0)
        return sample


class RandomSpeckle:
    """Multiplicative speckle plus a global gain, as a scanner of another make would give."""

    def __init__(self, sigma=0.15, gain=(0.8, 1.2)):
        self.sigma = sigma
        self.gain = gain

    def __call__(self, sample):
        img = sample["image"]
        g = np.random.uniform(*self.gain)
        noise = np.random.normal(1.0, self.sigma, size=img.shape).astype(np.float32)
        sample["image"] = np.clip(img * noise * np.float32(g), 0.0, 1.0).astype(np.float32)
        return sample

    def __repr__(self):
        return f"RandomSpeckle(sigma={self.sigma}, gain={self.gain})"


def _gaussian_taps(sigma, radius):
    taps = [math.exp(-0.5 * (i / sigma) ** 2) for i in range(-radius, radius + 1)]
    total = sum(taps)
    return [t / total for t in taps]


class DetectLayer:
    """Find the inner retinal boundary (ILM) in every A-scan.

    Each column is smoothed along depth with a Gaussian (edge-replicated), its central
    difference taken, and the row of the strongest dark-to-bright transition inside
    [min_row, max_row) kept (first row on ties). The per-column rows are then cleaned with a
    running median across columns, which removes single-column jumps at vessel shadows.
    """

    def __init__(self, sigma=1.5, radius=3, min_row=8, max_row=None, median_width=5):
        self.taps = _gaussian_taps(sigma, radius)
        self.radius = radius
        self.min_row = min_row
        self.max_row = max_row
        self.median_width = median_width

    def _smooth(self, column):
        n = len(column)
        r = self.radius
        out = []
        for i in range(n):
            acc = 0.0
            for t, w in enumerate(self.taps):
                k = i + t - r
                if k < 0:
                    k = 0
                elif k >= n:
                    k = n - 1
                acc += w * column[k]
            out.append(acc)
        return out

    def _boundary(self, column):
        s = self._smooth(column)
        hi = self.max_row if self.max_row is not None else len(s) - 1
        best_row, best = self.min_row, -math.inf
        for i in range(max(self.min_row, 1), min(hi, len(s) - 1)):
            g = s[i + 1] - s[i - 1]
            if g > best:
                best, best_row = g, i
        return best_row

    def _running_median(self, rows):
        half = self.median_width // 2
        n = len(rows)
        out = []
        for j in range(n):
            window = [rows[min(max(j + d, 0), n - 1)] for d in range(-half, half + 1)]
            out.append(sorted(window)[half])
        return out

    def __call__(self, sample):
        img = sample["image"]
        columns = img.T.tolist()
        rows = [self._boundary(col) for col in columns]
        sample["layer"] = np.asarray(self._running_median(rows), dtype=np.int64)
        return sample

    def __repr__(self):
        return f"DetectLayer(radius={self.radius}, min_row={self.min_row}, max_row={self.max_row})"


class FlattenToLayer:
    """Shift every column so the detected layer sits on ``target_row``; rows shifted in are 0."""

    def __init__(self, target_row=24):
        self.target_row = target_row

    def __call__(self, sample):
        img = sample["image"]
        h, w = img.shape
        cols = img.T.tolist()
        flat = []
        for j, (col, row) in enumerate(zip(cols, sample["layer"].tolist())):
            shift = self.target_row - row
            new = [0.0] * h
            i = max(0, shift)
            stop = min(h, h + shift)
            while i < stop:
                new[i] = col[i - shift]
                i += 1
            flat.append(new)
        sample["image"] = np.asarray(flat, dtype=np.float32).T.copy()
        sample["layer"] = sample["layer"] - sample["layer"].min()
        return sample


class RandomCrop:
    def __init__(self, size):
        self.size = tuple(size)

    def __call__(self, sample):
        img = sample["image"]
        th, tw = self.size
        h, w = img.shape
        top = int(np.random.randint(0, h - th + 1))
        left = int(np.random.randint(0, w - tw + 1))
        sample["image"] = img[top:top + th, left:left + tw]
        sample["layer"] = sample["layer"][left:left + tw]
        return sample

    def __repr__(self):
        return f"RandomCrop(size={self.size})"


class ToTensor:
    def __call__(self, sample):
        sample["image"] = torch.from_numpy(np.ascontiguousarray(sample["image"]))[None]
        sample["layer"] = torch.from_numpy(np.ascontiguousarray(sample["layer"]))
        return sample
