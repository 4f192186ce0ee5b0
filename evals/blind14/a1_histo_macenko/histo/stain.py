"""Macenko stain normalisation (Macenko et al., ISBI 2009), written against plain Python lists.

A tile is an HxWx3 uint8 array as it comes out of the slide reader. The normaliser converts it
to optical density, estimates the H&E stain vectors of the tile from the plane of its two
largest principal directions (robust angle percentiles), solves the stain concentrations of
every pixel and re-renders the tile with the reference stain matrix.
"""
import math

import numpy as np

# Reference H&E matrix (columns: hematoxylin, eosin) and reference max concentrations.
HE_REF = ((0.5626, 0.2159), (0.7201, 0.8012), (0.4062, 0.5581))
MAX_C_REF = (1.9705, 1.0308)


def percentile(sorted_values, q):
    """Linear-interpolated percentile of already sorted values (numpy's default method)."""
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * frac


def _dot3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


class MacenkoNormalizer:
    def __init__(self, io=240, alpha=1.0, beta=0.15, he_ref=HE_REF, max_c_ref=MAX_C_REF, min_pixels=32):
        self.io = io
        self.alpha = alpha
        self.beta = beta
        self.he_ref = he_ref
        self.max_c_ref = max_c_ref
        self.min_pixels = min_pixels

    def optical_density(self, pixels):
        io = self.io
        return [[-math.log((v + 1) / io) for v in px] for px in pixels]

    def stain_vectors(self, od):
        kept = [p for p in od if min(p) >= self.beta]
        n = len(kept)
        if n < self.min_pixels:
            return None
        mean = [sum(p[c] for p in kept) / n for c in range(3)]
        cov = [[0.0] * 3 for _ in range(3)]
        for i in range(3):
            for j in range(i, 3):
                s = sum((p[i] - mean[i]) * (p[j] - mean[j]) for p in kept) / (n - 1)
                cov[i][j] = cov[j][i] = s
        _, evecs = np.linalg.eigh(np.array(cov))
        v1 = evecs[:, 1].tolist()
        v2 = evecs[:, 2].tolist()
        phis = sorted(math.atan2(_dot3(p, v1), _dot3(p, v2)) for p in kept)
        lo = percentile(phis, self.alpha)
        hi = percentile(phis, 100.0 - self.alpha)
        vmin = [v2[c] * math.cos(lo) + v1[c] * math.sin(lo) for c in range(3)]
        vmax = [v2[c] * math.cos(hi) + v1[c] * math.sin(hi) for c in range(3)]
        # hematoxylin is the vector with the larger red OD
        he = (vmin, vmax) if vmin[0] > vmax[0] else (vmax, vmin)
        # make both point into the positive octant
        return tuple([-x for x in v] if sum(v) < 0 else v for v in he)

    @staticmethod
    def pseudo_inverse(he):
        g00, g01, g11 = _dot3(he[0], he[0]), _dot3(he[0], he[1]), _dot3(he[1], he[1])
        det = g00 * g11 - g01 * g01
        inv = ((g11 / det, -g01 / det), (-g01 / det, g00 / det))
        return [[inv[k][0] * he[0][c] + inv[k][1] * he[1][c] for c in range(3)] for k in range(2)]

    def __call__(self, tile):
        h, w, _ = tile.shape
        pixels = tile.reshape(-1, 3).tolist()
        od = self.optical_density(pixels)
        he = self.stain_vectors(od)
        if he is None:  # background tile: nothing to normalise
            return [pixels[r * w:(r + 1) * w] for r in range(h)]
        p0, p1 = self.pseudo_inverse(he)
        conc = [(_dot3(p0, o), _dot3(p1, o)) for o in od]
        max_c = [percentile(sorted(c[k] for c in conc), 99.0) for k in range(2)]
        scale = [self.max_c_ref[k] / max_c[k] if max_c[k] > 0 else 1.0 for k in range(2)]
        io, ref = self.io, self.he_ref
        out = []
        for c0, c1 in conc:
            c0 *= scale[0]
            c1 *= scale[1]
            px = []
            for ch in range(3):
                v = round(io * math.exp(-(ref[ch][0] * c0 + ref[ch][1] * c1)))
                px.append(255 if v > 255 else (0 if v < 0 else v))
            out.append(px)
        return [out[r * w:(r + 1) * w] for r in range(h)]
