"""torchvision-style transforms for raw fluorescence tiles.

A sample flows through Compose as a 2-D image (a list of rows while it is being corrected, then
a tensor). The random transforms draw from torch's global generator like torchvision does.
"""
import struct

import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        body = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n{body}\n)"


class DecodeRaw:
    """uint16 little-endian bytes -> list of rows of ints."""

    def __init__(self, height, width):
        self.height, self.width = height, width
        self._fmt = struct.Struct(f"<{height * width}H")

    def __call__(self, buf):
        flat = self._fmt.unpack(buf)
        w = self.width
        return [list(flat[r * w:(r + 1) * w]) for r in range(self.height)]

    def __repr__(self):
        return f"DecodeRaw({self.height}x{self.width})"


class FlatFieldCorrection:
    """(raw - dark) / gain, with gain = (flat - dark) / mean(flat - dark); negatives clipped to 0."""

    def __init__(self, dark, flat):
        dark = np.asarray(dark, dtype=np.int64)
        response = (np.asarray(flat, dtype=np.int64) - dark).astype(np.float64)
        gain = response / response.mean()
        self.dark = dark.tolist()
        self.gain = gain.tolist()

    def __call__(self, img):
        out = []
        for raw_row, dark_row, gain_row in zip(img, self.dark, self.gain):
            row = []
            for raw, d, g in zip(raw_row, dark_row, gain_row):
                v = (raw - d) / g
                row.append(v if v > 0.0 else 0.0)
            out.append(row)
        return out

    def __repr__(self):
        return "FlatFieldCorrection()"


def _running_min(values, radius):
    n = len(values)
    return [min(values[max(0, i - radius):i + radius + 1]) for i in range(n)]


class SubtractBackground:
    """Rolling-minimum background estimate (separable local minimum, window clipped at the border)."""

    def __init__(self, window):
        if window % 2 != 1:
            raise ValueError("background window must be odd")
        self.radius = window // 2

    def __call__(self, img):
        r = self.radius
        rows = [_running_min(row, r) for row in img]
        cols = [_running_min(list(col), r) for col in zip(*rows)]
        background = [list(row) for row in zip(*cols)]
        return [[v - b for v, b in zip(img_row, bg_row)] for img_row, bg_row in zip(img, background)]

    def __repr__(self):
        return f"SubtractBackground(window={2 * self.radius + 1})"


class RandomCrop:
    def __init__(self, size):
        self.size = size

    def __call__(self, img):
        h, w = len(img), len(img[0])
        top = int(torch.randint(0, h - self.size + 1, size=(1,)).item())
        left = int(torch.randint(0, w - self.size + 1, size=(1,)).item())
        return [row[left:left + self.size] for row in img[top:top + self.size]]

    def __repr__(self):
        return f"RandomCrop({self.size})"


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        if torch.rand(1) < self.p:
            return [row[::-1] for row in img]
        return img


class RandomVerticalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        if torch.rand(1) < self.p:
            return img[::-1]
        return img


class ToTensor:
    """list of rows (float ADU) -> float32 tensor of shape (1, H, W)."""

    def __call__(self, img):
        return torch.tensor(img, dtype=torch.float32).unsqueeze(0)


class LogNormalize:
    """log1p compression of the photon counts, then a fixed affine normalisation."""

    def __init__(self, mean, std):
        self.mean, self.std = mean, std

    def __call__(self, t):
        return (torch.log1p(t) - self.mean) / self.std
