"""Deterministic synthetic chest radiographs (12-bit, stored as uint16)."""
from functools import lru_cache

import numpy as np

CLASSES = ("normal", "nodule", "effusion")


@lru_cache(maxsize=4)
def _anatomy(size):
    """Average PA chest: mediastinum, two lung fields, ribs (normalised intensity)."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64) / size
    img = 0.55 + 0.25 * np.exp(-((xx - 0.5) ** 2) / 0.02)
    for cx in (0.3, 0.7):
        d = ((xx - cx) / 0.17) ** 2 + ((yy - 0.48) / 0.33) ** 2
        img -= 0.35 * np.clip(1.0 - d, 0.0, 1.0) ** 0.5
    img += 0.04 * np.sin(yy * 38.0) ** 8
    return img, yy, xx


def make_radiograph(index, size=80, bit_depth=12, seed=0):
    rng = np.random.default_rng(seed * 1_000_003 + index)
    label = int(rng.integers(0, len(CLASSES)))
    base, yy, xx = _anatomy(size)
    max_v = (1 << bit_depth) - 1
    img = base.copy()
    if label == 1:  # nodule: small bright blob inside a lung
        cx = rng.choice([0.3, 0.7]) + rng.normal(0, 0.05)
        cy = rng.uniform(0.3, 0.65)
        img += 0.18 * np.exp(-(((xx - cx) ** 2 + (yy - cy) ** 2) / 0.0012))
    elif label == 2:  # effusion: haze at a lung base
        side = rng.choice([0.3, 0.7])
        img += 0.22 * np.clip((yy - 0.6) / 0.25, 0, 1) * np.exp(-((xx - side) ** 2) / 0.02)
    # exposure varies a lot between machines: global gain/offset + quantum noise
    gain = rng.uniform(0.35, 0.9)
    offset = rng.uniform(0.02, 0.12)
    img = offset + gain * img + rng.normal(0, 0.015, img.shape)
    img = np.clip(img, 0.0, 1.0)
    return (img * max_v).astype(np.uint16), label
