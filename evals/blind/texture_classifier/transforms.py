"""Small torchvision-like transforms operating on HxWxC uint8 numpy images."""
import random

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
        lines = [self.__class__.__name__ + "("]
        for t in self.transforms:
            lines.append(f"    {t!r}")
        lines.append(")")
        return "\n".join(lines)


class RandomHorizontalFlip:
    """Flip left-right with probability p (uses the module-level `random`)."""

    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        if random.random() < self.p:
            return img[:, ::-1, :].copy()
        return img

    def __repr__(self):
        return f"RandomHorizontalFlip(p={self.p})"


class GammaLUT:
    """Gamma correction through a 256-entry lookup table."""

    def __init__(self, gamma):
        self.gamma = gamma
        self.table = np.array([round(255.0 * (i / 255.0) ** gamma) for i in range(256)], dtype=np.uint8)

    def __call__(self, img):
        return self.table[img]

    def __repr__(self):
        return f"GammaLUT(gamma={self.gamma})"


class Sharpen3x3:
    """Unsharp-style 3x3 integer kernel, edges replicated, result clamped to 0..255."""

    KERNEL = (0, -1, 0,
              -1, 5, -1,
              0, -1, 0)

    def __call__(self, img):
        h, w, c = img.shape
        out = np.empty_like(img)
        kernel = self.KERNEL
        for y in range(h):
            for x in range(w):
                for ch in range(c):
                    patch = []
                    for dy in (-1, 0, 1):
                        yy = min(max(y + dy, 0), h - 1)
                        for dx in (-1, 0, 1):
                            xx = min(max(x + dx, 0), w - 1)
                            patch.append(int(img[yy, xx, ch]))
                    acc = sum(a * b for a, b in zip(patch, kernel))
                    out[y, x, ch] = 0 if acc < 0 else (255 if acc > 255 else acc)
        return out

    def __repr__(self):
        return "Sharpen3x3()"


class ToTensor:
    """HWC uint8 -> CHW float32 in [0, 1]."""

    def __call__(self, img):
        return torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1))).float().div_(255.0)


class Normalize:
    def __init__(self, mean, std):
        self.mean = torch.tensor(mean, dtype=torch.float32).view(-1, 1, 1)
        self.std = torch.tensor(std, dtype=torch.float32).view(-1, 1, 1)

    def __call__(self, t):
        return (t - self.mean) / self.std
