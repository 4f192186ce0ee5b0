"""torchvision-style transforms for hyperspectral patches.

A sample is a dict {"patch": ndarray (h, w, bands) or list, "wavelengths": list, ...}; each transform
takes and returns the sample.
"""
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
        return f"{type(self).__name__}(\n{body}\n)"


class ToReflectance:
    """uint16 DN -> float64 reflectance."""

    def __init__(self, scale):
        self.scale = scale

    def __call__(self, sample):
        sample["patch"] = sample["patch"].astype(np.float64) * self.scale
        return sample

    def __repr__(self):
        return f"ToReflectance(scale={self.scale})"


class DropBands:
    """Remove the atmospheric water-vapour windows (the bands are unusable there)."""

    def __init__(self, wavelengths, windows=((1340.0, 1450.0), (1790.0, 1960.0))):
        wl = list(wavelengths)
        self.keep = [i for i, w in enumerate(wl) if not any(lo <= w <= hi for lo, hi in windows)]
        self.wavelengths = [wl[i] for i in self.keep]

    def __call__(self, sample):
        sample["patch"] = sample["patch"][..., self.keep]
        sample["wavelengths"] = self.wavelengths
        return sample

    def __repr__(self):
        return f"DropBands(kept={len(self.keep)})"


def upper_hull(x, y):
    """Indices of the upper convex hull of the points (x[i], y[i]); x ascending (Andrew's monotone chain)."""
    hull = []
    for k in range(len(x)):
        while len(hull) >= 2:
            o, a = hull[-2], hull[-1]
            cross = (x[a] - x[o]) * (y[k] - y[o]) - (y[a] - y[o]) * (x[k] - x[o])
            if cross >= 0.0:
                hull.pop()
            else:
                break
        hull.append(k)
    return hull


def continuum_removed(x, y):
    """y divided by its hull continuum (linear between consecutive hull vertices)."""
    hull = upper_hull(x, y)
    cont = [0.0] * len(y)
    for i0, i1 in zip(hull, hull[1:]):
        x0, y0, x1, y1 = x[i0], y[i0], x[i1], y[i1]
        for j in range(i0, i1):
            cont[j] = y0 + (y1 - y0) * (x[j] - x0) / (x1 - x0)
    cont[-1] = y[-1]
    return [v / c for v, c in zip(y, cont)]


class ContinuumRemoval:
    """Per pixel: divide the spectrum by its upper convex hull (Clark & Roush 1984)."""

    def __call__(self, sample):
        x = sample["wavelengths"]
        cube = sample["patch"]
        h, w, _ = cube.shape
        rows = []
        for i in range(h):
            row = []
            for j in range(w):
                row.append(continuum_removed(x, cube[i, j].tolist()))
            rows.append(row)
        sample["patch"] = rows
        return sample

    def __repr__(self):
        return "ContinuumRemoval()"


class SpectralAngles:
    """Append, per pixel, the spectral angle (radians) to each reference spectrum of a library."""

    def __init__(self, library):
        self.library = [list(map(float, r)) for r in library]
        self.ref_norms = [math.sqrt(sum(v * v for v in r)) for r in self.library]

    def angles(self, spec):
        norm = math.sqrt(sum(v * v for v in spec))
        out = []
        for ref, rn in zip(self.library, self.ref_norms):
            dot = 0.0
            for a, b in zip(spec, ref):
                dot += a * b
            c = dot / (norm * rn)
            out.append(math.acos(min(1.0, max(-1.0, c))))
        return out

    def __call__(self, sample):
        sample["patch"] = [[spec + self.angles(spec) for spec in row] for row in sample["patch"]]
        return sample

    def __repr__(self):
        return f"SpectralAngles(n_refs={len(self.library)})"


class RandomDihedral:
    """Random flip / transpose of the patch (the 8 symmetries of the square)."""

    def __init__(self, rng):
        self.rng = rng

    def __call__(self, sample):
        arr = np.asarray(sample["patch"], dtype=np.float64)
        k = int(self.rng.integers(0, 8))
        if k & 1:
            arr = arr[::-1]
        if k & 2:
            arr = arr[:, ::-1]
        if k & 4:
            arr = arr.transpose(1, 0, 2)
        sample["patch"] = arr
        return sample

    def __repr__(self):
        return "RandomDihedral()"


class SpectralJitter:
    """Additive Gaussian noise on the (continuum-removed) features."""

    def __init__(self, rng, sigma):
        self.rng, self.sigma = rng, sigma

    def __call__(self, sample):
        arr = sample["patch"]
        sample["patch"] = arr + self.rng.normal(0.0, self.sigma, arr.shape)
        return sample

    def __repr__(self):
        return f"SpectralJitter(sigma={self.sigma})"


class ToTensor:
    """(h, w, c) float64 -> (c, h, w) float32 tensor."""

    def __call__(self, sample):
        arr = np.ascontiguousarray(np.asarray(sample["patch"]).transpose(2, 0, 1), dtype=np.float32)
        sample["patch"] = torch.from_numpy(arr)
        return sample

    def __repr__(self):
        return "ToTensor()"
