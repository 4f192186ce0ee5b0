"""torchvision-style transforms for H&E tiles (numpy HWC uint8 in, tensor out)."""
import math

import numpy as np
import torch

# Ruifrok & Johnston stain vectors (rows: haematoxylin, eosin, DAB) in optical density space.
RGB_FROM_HED = np.array([[0.65, 0.70, 0.29],
                         [0.07, 0.99, 0.11],
                         [0.27, 0.57, 0.78]])
HED_FROM_RGB = np.linalg.inv(RGB_FROM_HED)


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        return "Compose(" + ", ".join(type(t).__name__ for t in self.transforms) + ")"


class RandomFlipRotate:
    """Random horizontal flip plus a random multiple of 90 degrees (tiles have no orientation)."""

    def __init__(self, p=0.5, generator=None):
        self.p = p
        self.generator = generator

    def __call__(self, img):
        if torch.rand(1, generator=self.generator).item() < self.p:
            img = img[:, ::-1]
        k = int(torch.randint(0, 4, (1,), generator=self.generator))
        return np.ascontiguousarray(np.rot90(img, k))


class ColorDeconvolution:
    """RGB -> haematoxylin / eosin optical densities (Beer-Lambert, Ruifrok-Johnston).

    Returns a list of two H x W lists of floats (non-negative OD per stain).
    """

    def __init__(self, matrix=HED_FROM_RGB, max_intensity=255.0):
        self.m = matrix.tolist()
        self.max_intensity = max_intensity

    def optical_density(self, value):
        return -math.log((value + 1.0) / (self.max_intensity + 1.0))

    def __call__(self, img):
        (m00, m01, _), (m10, m11, _), (m20, m21, _) = self.m
        haem, eosin = [], []
        for row in img.tolist():
            h_row, e_row = [], []
            for r, g, b in row:
                od_r = self.optical_density(r)
                od_g = self.optical_density(g)
                od_b = self.optical_density(b)
                h = od_r * m00 + od_g * m10 + od_b * m20
                e = od_r * m01 + od_g * m11 + od_b * m21
                h_row.append(h if h > 0.0 else 0.0)
                e_row.append(e if e > 0.0 else 0.0)
            haem.append(h_row)
            eosin.append(e_row)
        return [haem, eosin]


def percentile(sorted_values, q):
    """Linear-interpolated percentile of an ascending list (numpy's default definition)."""
    pos = q / 100.0 * (len(sorted_values) - 1)
    i = int(pos)
    frac = pos - i
    if i + 1 >= len(sorted_values):
        return sorted_values[-1]
    lo = sorted_values[i]
    return lo + (sorted_values[i + 1] - lo) * frac


class PercentileStretch:
    """Per-channel contrast stretch: [p_low, p_high] -> [0, 1], clipped."""

    def __init__(self, low=1.0, high=99.0, eps=1e-6):
        self.low, self.high, self.eps = low, high, eps

    def __call__(self, channels):
        out = []
        for chan in channels:
            flat = sorted(v for row in chan for v in row)
            lo = percentile(flat, self.low)
            hi = percentile(flat, self.high)
            scale = max(hi - lo, self.eps)
            stretched = []
            for row in chan:
                new_row = []
                for v in row:
                    x = (v - lo) / scale
                    new_row.append(0.0 if x < 0.0 else (1.0 if x > 1.0 else x))
                stretched.append(new_row)
            out.append(stretched)
        return out


class ToTensor:
    def __call__(self, channels):
        return torch.tensor(channels, dtype=torch.float32)
