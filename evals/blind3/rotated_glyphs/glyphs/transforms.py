"""Minimal torchvision-style transforms that take an explicit random.Random for reproducibility."""
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


def _pixel(src, x, y, w, h):
    if 0 <= x < w and 0 <= y < h:
        return src[y][x]
    return 0


class RandomRotation:
    """Rotate about the image centre by U(-degrees, degrees), bilinear, zero fill."""

    def __init__(self, degrees):
        self.degrees = degrees

    def __call__(self, img, rng):
        angle = rng.uniform(-self.degrees, self.degrees)
        theta = math.radians(angle)
        cos_t, sin_t = math.cos(theta), math.sin(theta)
        h, w = img.shape
        cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
        src = img.tolist()
        out = [[0] * w for _ in range(h)]
        for y in range(h):
            for x in range(w):
                # inverse mapping: where does output pixel (x, y) come from?
                xs = cos_t * (x - cx) + sin_t * (y - cy) + cx
                ys = -sin_t * (x - cx) + cos_t * (y - cy) + cy
                x0 = math.floor(xs)
                y0 = math.floor(ys)
                fx = xs - x0
                fy = ys - y0
                v = ((1 - fx) * (1 - fy) * _pixel(src, x0, y0, w, h)
                     + fx * (1 - fy) * _pixel(src, x0 + 1, y0, w, h)
                     + (1 - fx) * fy * _pixel(src, x0, y0 + 1, w, h)
                     + fx * fy * _pixel(src, x0 + 1, y0 + 1, w, h))
                out[y][x] = int(v + 0.5)
        return np.array(out, dtype=np.uint8)


class RandomCrop:
    def __init__(self, size, padding):
        self.size, self.padding = size, padding

    def __call__(self, img, rng):
        p = self.padding
        padded = np.pad(img, p)
        top = rng.randint(0, 2 * p)
        left = rng.randint(0, 2 * p)
        return padded[top:top + self.size, left:left + self.size]


class ToTensor:
    def __call__(self, img, rng):
        return torch.from_numpy(np.ascontiguousarray(img)).float().div(255.0).unsqueeze(0)


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = mean, std

    def __call__(self, tensor, rng):
        return (tensor - self.mean) / self.std
