"""torchvision-style transforms for 12-bit radiographs (numpy in, tensor out)."""
import math
import random

import numpy as np
import torch
import torch.nn.functional as F


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, x):
        for t in self.transforms:
            x = t(x)
        return x


def _clip_histogram(hist, clip_limit, n_pixels, nbins):
    """Contrast limiting: clip each bin and spread the excess uniformly (as in Zuiderveld's CLAHE)."""
    clip = max(1, int(clip_limit * n_pixels / nbins))
    excess = int(np.maximum(hist - clip, 0).sum())
    hist = np.minimum(hist, clip)
    per_bin, residual = divmod(excess, nbins)
    hist = hist + per_bin
    if residual:
        step = max(1, nbins // residual)
        hist[::step][:residual] += 1
    return hist


def _tile_maps(bins, tiles, clip_limit, nbins):
    h, w = bins.shape
    ty, tx = tiles
    th, tw = h // ty, w // tx
    maps = np.empty((ty, tx, nbins), dtype=np.float64)
    for i in range(ty):
        for j in range(tx):
            tile = bins[i * th:(i + 1) * th, j * tw:(j + 1) * tw]
            hist = np.bincount(tile.ravel(), minlength=nbins)
            hist = _clip_histogram(hist, clip_limit, th * tw, nbins)
            maps[i, j] = np.cumsum(hist) * (1.0 / (th * tw))
    return maps


class CLAHE:
    """Contrast Limited Adaptive Histogram Equalisation for high-bit-depth images.

    Each tile gets its own clipped-histogram mapping; every pixel blends the mappings of the
    four nearest tile centres bilinearly, so there are no seams at tile borders.
    """

    def __init__(self, tiles=(8, 8), clip_limit=2.0, nbins=256, bit_depth=12):
        self.tiles = tuple(tiles)
        self.clip_limit = clip_limit
        self.nbins = nbins
        self.levels = 1 << bit_depth

    def __call__(self, img):
        h, w = img.shape
        ty, tx = self.tiles
        th, tw = h // ty, w // tx
        bins = (img.astype(np.int64) * self.nbins) // self.levels
        maps = _tile_maps(bins, self.tiles, self.clip_limit, self.nbins)

        out = np.empty((h, w), dtype=np.float32)
        lut = maps.tolist()
        rows = bins.tolist()
        for y in range(h):
            gy = (y + 0.5) / th - 0.5
            i0 = math.floor(gy)
            wy = gy - i0
            i1 = i0 + 1
            i0 = min(max(i0, 0), ty - 1)
            i1 = min(max(i1, 0), ty - 1)
            row = rows[y]
            res = [0.0] * w
            for x in range(w):
                gx = (x + 0.5) / tw - 0.5
                j0 = math.floor(gx)
                wx = gx - j0
                j1 = j0 + 1
                j0 = min(max(j0, 0), tx - 1)
                j1 = min(max(j1, 0), tx - 1)
                v = row[x]
                top = lut[i0][j0][v] * (1.0 - wx) + lut[i0][j1][v] * wx
                bot = lut[i1][j0][v] * (1.0 - wx) + lut[i1][j1][v] * wx
                res[x] = top * (1.0 - wy) + bot * wy
            out[y] = res
        return out


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        if random.random() < self.p:
            return np.ascontiguousarray(img[:, ::-1])
        return img


class ToTensor:
    def __call__(self, img):
        return torch.from_numpy(np.ascontiguousarray(img, dtype=np.float32)).unsqueeze(0)


class Resize:
    def __init__(self, size):
        self.size = size

    def __call__(self, t):
        return F.interpolate(t.unsqueeze(0), size=(self.size, self.size), mode="bilinear",
                             align_corners=False).squeeze(0)


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = mean, std

    def __call__(self, t):
        return (t - self.mean) / self.std
