"""torchvision-style transforms for radiometric thermal frames.

Each transform is a callable on a `sample` dict, chained by `Compose`.
"""
import math

import numpy as np
import torch

from .io import RawFrameCodec, SATURATED


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample

    def __repr__(self):
        body = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{type(self).__name__}(\n{body}\n)"


class DecodeRaw:
    """bytes -> (H, W) uint16 counts, header fields kept in `meta`."""

    def __call__(self, sample):
        counts, meta = RawFrameCodec.decode(sample["raw"])
        sample["counts"], sample["meta"] = counts, meta
        return sample


class RadiometricCalibration:
    """Per-pixel NUC (gain/offset) to corrected 14-bit counts, then the Planck curve to degrees C.

    Pixels that are saturated, empty or in the factory bad-pixel map come out as None.
    """

    def __init__(self, calib):
        self.calib = calib

    def temperature(self, counts):
        c = self.calib
        return c.B / math.log(c.R1 / (c.R2 * (counts - c.O)) + c.F) - 273.15

    def __call__(self, sample):
        counts = sample["counts"].tolist()
        gain, offset, dead = self.calib.gain.tolist(), self.calib.offset.tolist(), self.calib.dead.tolist()
        out = []
        for row, grow, orow, drow in zip(counts, gain, offset, dead):
            line = []
            for raw, g, o, bad in zip(row, grow, orow, drow):
                if bad or raw == 0 or raw == SATURATED:
                    line.append(None)
                    continue
                corrected = min(max(round(g * raw + o), 0), SATURATED)
                line.append(self.temperature(corrected))
            out.append(line)
        sample["celsius"] = out
        return sample

    def __repr__(self):
        return f"{type(self).__name__}(B={self.calib.B}, O={self.calib.O})"


def _median(values):
    values = sorted(values)
    n = len(values)
    mid = n // 2
    return values[mid] if n % 2 else (values[mid - 1] + values[mid]) / 2


class ReplaceDeadPixels:
    """Invalid pixels take the median of their valid 8-neighbours (the frame median if none is valid).

    Only originally valid pixels are used as neighbours, so the result does not depend on scan order.
    """

    OFFSETS = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dy, dx) != (0, 0)]

    def __call__(self, sample):
        img = sample["celsius"]
        h, w = len(img), len(img[0])
        fixed = [row[:] for row in img]
        frame_median = None
        n_fixed = 0
        for y in range(h):
            for x in range(w):
                if img[y][x] is not None:
                    continue
                neigh = [img[y + dy][x + dx] for dy, dx in self.OFFSETS
                         if 0 <= y + dy < h and 0 <= x + dx < w and img[y + dy][x + dx] is not None]
                if neigh:
                    fixed[y][x] = _median(neigh)
                else:
                    if frame_median is None:
                        frame_median = _median([v for row in img for v in row if v is not None])
                    fixed[y][x] = frame_median
                n_fixed += 1
        sample["celsius"] = fixed
        sample["n_fixed"] = n_fixed
        return sample


class ToTensor:
    def __call__(self, sample):
        sample["image"] = torch.tensor(sample["celsius"], dtype=torch.float32).unsqueeze(0)
        return sample


class RandomCrop:
    def __init__(self, size, generator):
        self.size, self.generator = size, generator

    def __call__(self, sample):
        img = sample["image"]
        th, tw = self.size
        h, w = img.shape[-2:]
        top = int(torch.randint(0, h - th + 1, (1,), generator=self.generator))
        left = int(torch.randint(0, w - tw + 1, (1,), generator=self.generator))
        sample["image"] = img[..., top:top + th, left:left + tw]
        return sample


class RandomHorizontalFlip:
    def __init__(self, p, generator):
        self.p, self.generator = p, generator

    def __call__(self, sample):
        if float(torch.rand(1, generator=self.generator)) < self.p:
            sample["image"] = sample["image"].flip(-1)
        return sample


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = mean, std

    def __call__(self, sample):
        sample["image"] = (sample["image"] - self.mean) / self.std
        return sample
