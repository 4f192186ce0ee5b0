"""Scan transforms in the torchvision style: callables on a sample dict, chained by Compose."""
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


class RandomShift:
    """Translate the scan by up to `max_shift` pixels, filling with the background grey."""

    def __init__(self, max_shift, fill=205):
        self.max_shift = max_shift
        self.fill = fill

    def __call__(self, sample):
        img = sample["image"]
        dy, dx = (torch.randint(-self.max_shift, self.max_shift + 1, (2,))).tolist()
        out = np.full_like(img, self.fill)
        h, w = img.shape
        ys, yd = (slice(0, h - dy), slice(dy, h)) if dy >= 0 else (slice(-dy, h), slice(0, h + dy))
        xs, xd = (slice(0, w - dx), slice(dx, w)) if dx >= 0 else (slice(-dx, w), slice(0, w + dx))
        out[yd, xd] = img[ys, xs]
        sample["image"] = out
        return sample

    def __repr__(self):
        return f"RandomShift(max_shift={self.max_shift})"


class RandomGain:
    """Sensor brightness drift: add an integer offset to every pixel."""

    def __init__(self, max_gain):
        self.max_gain = max_gain

    def __call__(self, sample):
        delta = int(torch.randint(-self.max_gain, self.max_gain + 1, ()))
        img = sample["image"].astype(np.int16) + delta
        sample["image"] = np.clip(img, 0, 255).astype(np.uint8)
        return sample

    def __repr__(self):
        return f"RandomGain(max_gain={self.max_gain})"


class SobelGradients:
    """3x3 Sobel derivatives (zero on the one-pixel border)."""

    def __call__(self, sample):
        img = sample["image"].astype(np.float64)
        gx = np.zeros_like(img)
        gy = np.zeros_like(img)
        gx[1:-1, 1:-1] = (img[:-2, 2:] + 2.0 * img[1:-1, 2:] + img[2:, 2:]) \
            - (img[:-2, :-2] + 2.0 * img[1:-1, :-2] + img[2:, :-2])
        gy[1:-1, 1:-1] = (img[2:, :-2] + 2.0 * img[2:, 1:-1] + img[2:, 2:]) \
            - (img[:-2, :-2] + 2.0 * img[:-2, 1:-1] + img[:-2, 2:])
        sample["gx"], sample["gy"] = gx, gy
        return sample

    def __repr__(self):
        return "SobelGradients()"


class BlockOrientationField:
    """Least-squares ridge orientation per block (Rao / Hong et al.).

    For every `block` x `block` tile: Gxx = sum gx^2, Gyy = sum gy^2, Gxy = sum gx*gy,
    theta = 0.5 * atan2(2 Gxy, Gxx - Gyy) (gradient direction; ridges run perpendicular),
    coherence = |(Gxx - Gyy, 2 Gxy)| / (Gxx + Gyy), and the tile is foreground when the
    grey-level variance of the tile exceeds `var_threshold`.
    Output channels: cos(2 theta), sin(2 theta) (as the normalised doubled-angle vector),
    theta, coherence, foreground mask.
    """

    def __init__(self, block=8, var_threshold=150.0):
        self.block = block
        self.var_threshold = var_threshold

    def __call__(self, sample):
        img = sample["image"].astype(np.float64)
        gx, gy = sample["gx"], sample["gy"]
        b = self.block
        nby, nbx = img.shape[0] // b, img.shape[1] // b
        field = np.zeros((5, nby, nbx), dtype=np.float64)
        n = b * b
        for by in range(nby):
            for bx in range(nbx):
                gxx = gyy = gxy = 0.0
                s = s2 = 0.0
                for y in range(by * b, (by + 1) * b):
                    for x in range(bx * b, (bx + 1) * b):
                        dx = gx[y, x]
                        dy = gy[y, x]
                        gxx += dx * dx
                        gyy += dy * dy
                        gxy += dx * dy
                        p = img[y, x]
                        s += p
                        s2 += p * p
                diff = gxx - gyy
                norm = math.sqrt(diff * diff + 4.0 * gxy * gxy)
                denom = gxx + gyy
                if norm > 0:
                    field[0, by, bx] = diff / norm
                    field[1, by, bx] = 2.0 * gxy / norm
                field[2, by, bx] = 0.5 * math.atan2(2.0 * gxy, diff)
                field[3, by, bx] = norm / denom if denom > 0 else 0.0
                mean = s / n
                var = s2 / n - mean * mean
                field[4, by, bx] = 1.0 if var > self.var_threshold else 0.0
        sample["field"] = field
        return sample

    def __repr__(self):
        return f"BlockOrientationField(block={self.block}, var_threshold={self.var_threshold})"


class ToTensor:
    def __call__(self, sample):
        return {
            "field": torch.from_numpy(sample["field"]).float(),
            "label": torch.tensor(sample["label"], dtype=torch.long),
        }

    def __repr__(self):
        return "ToTensor()"
