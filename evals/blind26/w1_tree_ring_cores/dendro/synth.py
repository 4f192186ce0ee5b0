"""Synthetic increment-core scans.

Each core is a strip of `height` x `width` 8-bit pixels. Rings run across the strip: earlywood
is bright, latewood darkens towards the ring boundary. Ring widths depend on the species
(mean width, variability) and on a slow climate signal shared by the class.
"""
import numpy as np

SPECIES = ("pinus_sylvestris", "picea_abies", "quercus_robur", "larix_decidua")
_MEAN_WIDTH = (11.0, 8.5, 14.0, 9.5)
_WIDTH_CV = (0.25, 0.45, 0.30, 0.20)
_LATEWOOD = (0.30, 0.22, 0.45, 0.35)


def make_core(seed, index, height, width, n_species):
    rng = np.random.default_rng([seed, index])
    label = int(rng.integers(n_species))
    mean_w, cv, late = _MEAN_WIDTH[label], _WIDTH_CV[label], _LATEWOOD[label]
    n = int(width / mean_w * 2) + 4
    climate = np.sin(np.arange(n) * (0.35 + 0.1 * label) + rng.uniform(0, 6.28))
    widths = mean_w * (1.0 + cv * (0.6 * climate + 0.8 * rng.standard_normal(n)))
    widths = np.clip(widths, 4.0, None)
    edges = np.cumsum(widths) - rng.uniform(0, widths[0])
    x = np.arange(width, dtype=np.float64)
    ring = np.searchsorted(edges, x)
    start = np.where(ring > 0, edges[np.maximum(ring - 1, 0)], edges[0] - widths[0])
    frac = (x - start) / widths[ring]
    tone = np.where(frac < 1.0 - late, 200.0 - 40.0 * frac, 200.0 - 40.0 * frac - 110.0 * (frac - (1.0 - late)) / late)
    tilt = rng.uniform(-0.04, 0.04)
    rows = np.arange(height)[:, None]
    shift = (rows - height / 2) * tilt
    img = np.interp(x[None, :] + shift, x, tone)
    img = img + rng.normal(0, 9.0, size=img.shape) + rng.uniform(-20, 20)
    return np.clip(np.rint(img), 8, 250).astype(np.uint8), label
