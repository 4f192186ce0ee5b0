"""Speckle filtering and radiometric transforms for SAR amplitude chips (torchvision style)."""
import math

import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def __repr__(self):
        body = "\n".join(f"    {t!r}" for t in self.transforms)
        return f"{self.__class__.__name__}(\n{body}\n)"


class RandomCrop:
    """Crop a random size x size window out of an (H, W) digital-number array."""

    def __init__(self, size):
        self.size = size

    def __call__(self, img):
        h, w = img.shape
        if h == self.size and w == self.size:
            return img
        top = int(torch.randint(0, h - self.size + 1, (1,)).item())
        left = int(torch.randint(0, w - self.size + 1, (1,)).item())
        return img[top:top + self.size, left:left + self.size]

    def __repr__(self):
        return f"RandomCrop(size={self.size})"


class LeeFilter:
    """Lee (1980) adaptive speckle filter.

    For every pixel the local mean and variance over a size x size window (clipped at the
    chip border) give the local coefficient of variation Ci^2 = var / mean^2; the pixel is
    pulled towards the local mean with weight w = 1 - Cu^2 / Ci^2 (0 where the window looks
    homogeneous, Ci^2 <= Cu^2), Cu = 1 / sqrt(ENL) being the speckle's own variation.
    Input: (H, W) integer digital numbers. Output: float32 tensor (H, W).
    """

    def __init__(self, size=7, enl=4.0):
        if size % 2 != 1:
            raise ValueError("window size must be odd")
        self.size = size
        self.enl = enl
        self.cu2 = 1.0 / enl

    def _window_stats(self, rows, i0, i1, j0, j1):
        s = 0
        ss = 0
        for row in rows[i0:i1]:
            seg = row[j0:j1]
            s += sum(seg)
            ss += sum(v * v for v in seg)
        n = (i1 - i0) * (j1 - j0)
        mean = s / n
        var = max(ss / n - mean * mean, 0.0)
        return mean, var

    def __call__(self, img):
        rows = np.asarray(img).tolist()
        h, w = len(rows), len(rows[0])
        r = self.size // 2
        cu2 = self.cu2
        out = []
        for i in range(h):
            i0, i1 = max(0, i - r), min(h, i + r + 1)
            line = []
            for j, x in enumerate(rows[i]):
                mean, var = self._window_stats(rows, i0, i1, max(0, j - r), min(w, j + r + 1))
                if mean == 0:
                    line.append(0.0)
                    continue
                ci2 = var / (mean * mean)
                weight = 1.0 - cu2 / ci2 if ci2 > cu2 else 0.0
                line.append(mean + weight * (x - mean))
            out.append(line)
        return torch.tensor(out, dtype=torch.float32)

    def __repr__(self):
        return f"LeeFilter(size={self.size}, enl={self.enl})"


class ToDecibel:
    """Amplitude DN -> backscatter in dB, clamped at the noise floor."""

    def __init__(self, noise_floor=20.0):
        self.noise_floor = noise_floor

    def __call__(self, amp):
        power = torch.clamp(amp, min=self.noise_floor) ** 2
        return 10.0 * torch.log10(power)

    def __repr__(self):
        return f"ToDecibel(noise_floor={self.noise_floor})"


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = mean, std

    def __call__(self, x):
        return ((x - self.mean) / self.std).unsqueeze(0)

    def __repr__(self):
        return f"Normalize(mean={self.mean}, std={self.std})"


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, x):
        if torch.rand(1).item() < self.p:
            return torch.flip(x, dims=[-1])
        return x

    def __repr__(self):
        return f"RandomHorizontalFlip(p={self.p})"


def enl_to_cu(enl):
    return 1.0 / math.sqrt(enl)
