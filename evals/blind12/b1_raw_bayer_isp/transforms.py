"""torchvision-style transforms for a minimal dcraw-like ISP.

Each transform takes and returns a dict sample: {"raw": uint16 array, "meta": {...}, ...}.
"""
import math

import numpy as np
import torch

CHANNEL = {"R": 0, "G": 1, "B": 2}


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample

    def __repr__(self):
        return "Compose(" + ", ".join(type(t).__name__ for t in self.transforms) + ")"


class RandomCrop:
    """Crop the mosaic at any offset; the CFA phase of the crop is kept in sample['origin']."""

    def __init__(self, size, rng):
        self.size = size
        self.rng = rng

    def __call__(self, sample):
        raw = sample["raw"]
        h, w = raw.shape
        top = int(self.rng.integers(0, h - self.size + 1))
        left = int(self.rng.integers(0, w - self.size + 1))
        sample["raw"] = raw[top:top + self.size, left:left + self.size]
        sample["origin"] = (top, left)
        return sample


def cfa_color(cfa, y, x):
    return CHANNEL[cfa[2 * (y & 1) + (x & 1)]]


class WhiteBalance:
    """dcraw scale_colors: subtract black, scale each CFA site to 16 bits with the as-shot multipliers."""

    def __call__(self, sample):
        raw, meta = sample["raw"], sample["meta"]
        black, white, cfa = meta["black"], meta["white"], meta["cfa"]
        wb = meta["wb"]
        lo = min(wb)
        scale = [m / lo * 65535.0 / (white - black) for m in wb]
        oy, ox = sample["origin"]
        rows = raw.tolist()
        out = []
        for y, row in enumerate(rows):
            line = []
            for x, v in enumerate(row):
                s = scale[cfa_color(cfa, y + oy, x + ox)]
                val = int((v - black) * s + 0.5)
                line.append(0 if val < 0 else (65535 if val > 65535 else val))
            out.append(line)
        sample["wb16"] = out
        return sample


class BilinearDemosaic:
    """dcraw lin_interpolate: each missing colour is the rounded integer mean of the same-colour
    neighbours in the 3x3 window (clipped at the border); the native colour is kept."""

    def __call__(self, sample):
        img = sample.pop("wb16")
        cfa = sample["meta"]["cfa"]
        oy, ox = sample["origin"]
        h, w = len(img), len(img[0])
        rgb = [[[0, 0, 0] for _ in range(w)] for _ in range(h)]
        for y in range(h):
            for x in range(w):
                native = cfa_color(cfa, y + oy, x + ox)
                sums = [0, 0, 0]
                counts = [0, 0, 0]
                for dy in (-1, 0, 1):
                    yy = y + dy
                    if yy < 0 or yy >= h:
                        continue
                    row = img[yy]
                    for dx in (-1, 0, 1):
                        xx = x + dx
                        if xx < 0 or xx >= w or (dy == 0 and dx == 0):
                            continue
                        c = cfa_color(cfa, yy + oy, xx + ox)
                        sums[c] += row[xx]
                        counts[c] += 1
                px = rgb[y][x]
                for c in range(3):
                    if c == native:
                        px[c] = img[y][x]
                    else:
                        n = counts[c]
                        px[c] = (sums[c] + n // 2) // n
        sample["rgb16"] = rgb
        return sample


def srgb_encode(v):
    if v <= 0.0031308:
        return 12.92 * v
    return 1.055 * math.pow(v, 1.0 / 2.4) - 0.055


class SRGBGamma:
    """16-bit linear -> sRGB transfer curve, float32 in [0, 1], channel-first."""

    def __call__(self, sample):
        rgb = sample.pop("rgb16")
        h, w = len(rgb), len(rgb[0])
        out = np.empty((3, h, w), dtype=np.float32)
        for y in range(h):
            for x in range(w):
                for c, v in enumerate(rgb[y][x]):
                    out[c, y, x] = srgb_encode(v / 65535.0)
        sample["image"] = out
        return sample


class RandomHFlip:
    def __init__(self, p, rng):
        self.p = p
        self.rng = rng

    def __call__(self, sample):
        if self.rng.random() < self.p:
            sample["image"] = sample["image"][:, :, ::-1]
        return sample


class ToTensor:
    def __call__(self, sample):
        return torch.from_numpy(np.ascontiguousarray(sample["image"])), sample["label"]
