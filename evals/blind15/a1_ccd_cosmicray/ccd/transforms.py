"""torchvision-style transforms over a cutout sample dict."""
import math
import statistics

import numpy as np
import torch

from .calib import reduce_window


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


class Calibrate:
    """Bias/dark subtraction and flat-fielding of the raw window."""

    def __init__(self, masters, exptime):
        self.masters = masters
        self.exptime = exptime

    def __call__(self, sample):
        size = sample["raw"].shape[0]
        bias, dark, flat = self.masters.window(sample["y0"], sample["x0"], size)
        sample["image"] = reduce_window(sample["raw"], bias, dark, flat, self.exptime)
        return sample

    def __repr__(self):
        return f"Calibrate(exptime={self.exptime})"


class RejectCosmicRays:
    """Iterative sigma clipping against the median of the 8 neighbours.

    A pixel is a hit when it exceeds its neighbourhood median by more than
    `sigma` times the expected noise (Poisson on the median + read noise). Hits are
    replaced by that median and the pass is repeated on the cleaned window (up to
    `max_iter` passes, stopping early once a pass finds nothing). The one-pixel border
    only feeds the neighbourhoods (the window is read with a margin of one) and is
    cropped at the end, so the output is two pixels smaller per axis.
    """

    def __init__(self, sigma, gain, read_noise, max_iter=2):
        self.sigma = float(sigma)
        self.gain = float(gain)
        self.read_noise = float(read_noise)
        self.max_iter = int(max_iter)

    def _noise(self, level):
        return math.sqrt(self.gain * max(level, 0.0) + self.read_noise * self.read_noise) / self.gain

    def _clip_pass(self, rows):
        h, w = len(rows), len(rows[0])
        clean, hits = [rows[0][:]], 0
        for y in range(1, h - 1):
            up, row, down = rows[y - 1], rows[y], rows[y + 1]
            out = [row[0]]
            for x in range(1, w - 1):
                value = row[x]
                med = statistics.median((up[x - 1], up[x], up[x + 1], row[x - 1],
                                         row[x + 1], down[x - 1], down[x], down[x + 1]))
                if value - med > self.sigma * self._noise(med):
                    out.append(med)
                    hits += 1
                else:
                    out.append(value)
            out.append(row[-1])
            clean.append(out)
        clean.append(rows[-1][:])
        return clean, hits

    def __call__(self, sample):
        rows = sample["image"].tolist()
        hits = 0
        for _ in range(self.max_iter):
            rows, found = self._clip_pass(rows)
            hits += found
            if not found:
                break
        sample["image"] = np.array([row[1:-1] for row in rows[1:-1]], dtype=np.float64)
        sample["cr_hits"] = hits
        return sample

    def __repr__(self):
        return (f"RejectCosmicRays(sigma={self.sigma}, gain={self.gain}, read_noise={self.read_noise}, "
                f"max_iter={self.max_iter})")


class RandomFlip:
    def __init__(self, axis, p=0.5, generator=None):
        self.axis, self.p, self.generator = axis, p, generator

    def __call__(self, sample):
        if torch.rand(1, generator=self.generator).item() < self.p:
            sample["image"] = np.flip(sample["image"], axis=self.axis)
        return sample

    def __repr__(self):
        return f"RandomFlip(axis={self.axis}, p={self.p})"


class AsinhStretch:
    """Sky-subtracted asinh stretch; the sky is the cutout median."""

    def __init__(self, softening=25.0):
        self.softening = softening

    def __call__(self, sample):
        img = sample["image"]
        sky = np.median(img)
        sample["image"] = np.arcsinh((img - sky) / self.softening)
        return sample


class ToTensor:
    def __call__(self, sample):
        return {
            "image": torch.from_numpy(np.ascontiguousarray(sample["image"], dtype=np.float32)).unsqueeze(0),
            "label": torch.tensor(sample["label"], dtype=torch.long),
            "cr_hits": torch.tensor(sample["cr_hits"], dtype=torch.int32),
        }
