"""Cartesian -> (r, theta) unwrapping of coronagraph frames around the Sun centre."""
import math

import numpy as np


class PolarGrid:
    """Bin centres on (r, position angle), each bin sampled `oversample` x `oversample` times."""

    def __init__(self, center, r_min, r_max, n_radii, n_angles, oversample=2):
        self.cy, self.cx = float(center[0]), float(center[1])
        self.n_radii, self.n_angles = n_radii, n_angles
        dr = (r_max - r_min) / (n_radii - 1)
        dth = 2 * np.pi / n_angles
        offsets = (np.arange(oversample) + 0.5) / oversample - 0.5
        radii = np.linspace(r_min, r_max, n_radii)
        angles = np.linspace(-np.pi, np.pi, n_angles, endpoint=False)
        self.sub_r = radii[:, None] + offsets[None, :] * dr            # (n_radii, k)
        sub_th = angles[:, None] + offsets[None, :] * dth              # (n_angles, k)
        self.sub_cos = np.cos(sub_th)
        self.sub_sin = np.sin(sub_th)
        self.weight = 1.0 / (oversample * oversample)

    @property
    def shape(self):
        return self.n_radii, self.n_angles


def _bilinear(pix, x, y, w, h):
    x0 = math.floor(x)
    y0 = math.floor(y)
    if x0 < 0 or y0 < 0 or x0 + 1 >= w or y0 + 1 >= h:
        return 0.0
    fx = x - x0
    fy = y - y0
    top = pix[y0][x0] * (1.0 - fx) + pix[y0][x0 + 1] * fx
    bot = pix[y0 + 1][x0] * (1.0 - fx) + pix[y0 + 1][x0 + 1] * fx
    return top * (1.0 - fy) + bot * fy


def unwrap(img, grid):
    """Area-averaged bilinear resampling of `img` onto the polar grid (outside the frame: 0)."""
    h, w = img.shape
    pix = img.tolist()
    sub_r = grid.sub_r.tolist()
    sub_cs = [list(zip(c, s)) for c, s in zip(grid.sub_cos.tolist(), grid.sub_sin.tolist())]
    out = np.zeros(grid.shape, dtype=np.float32)
    for i in range(grid.n_radii):
        row = out[i]
        for j in range(grid.n_angles):
            acc = 0.0
            for r in sub_r[i]:
                for c, s in sub_cs[j]:
                    acc += _bilinear(pix, grid.cx + r * c, grid.cy + r * s, w, h)
            row[j] = acc * grid.weight
    return out


def radial_normalize(polar, eps=1e-3):
    """Log-scale, then standardise each radius ring (removes the r^-n falloff)."""
    p = np.log1p(polar)
    mu = p.mean(axis=1, keepdims=True)
    sd = p.std(axis=1, keepdims=True)
    return ((p - mu) / (sd + eps)).astype(np.float32)
