"""Synthetic widefield acquisitions: raw 16-bit tiles plus dark and flat calibration frames.

Real pipelines read these from TIFF stacks; here they are simulated once from the seed so the
example is self-contained. Raw tiles are kept as little-endian uint16 byte strings, the way a
camera SDK hands them over.
"""
import numpy as np


def vignetting(size, rng):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    cy, cx = (size - 1) / 2 + rng.normal(0, 3, 2)
    r2 = ((yy - cy) ** 2 + (xx - cx) ** 2) / (0.75 * size) ** 2
    return 1.0 - 0.45 * r2


def calibration_frames(size, dark_level, rng, n_avg=16):
    """Averaged dark frame (int ADU) and flat frame (int ADU), as stored by the acquisition software."""
    hot = rng.random((size, size)) < 0.002
    dark = dark_level + rng.normal(0, 1.5, (size, size)) + hot * rng.uniform(50, 400, (size, size))
    dark = np.rint(dark).astype(np.int64)
    illum = vignetting(size, rng) * (1.0 + 0.02 * rng.standard_normal((size, size)))
    flat = dark + np.rint(illum * 12000 + rng.normal(0, 40, (size, size)) / np.sqrt(n_avg)).astype(np.int64)
    return dark, flat, illum


def simulate_tile(label, size, dark, illum, rng):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    n_nuclei = int(rng.integers(3, 9))
    signal = np.zeros((size, size))
    radius = {0: 3.0, 1: 5.0, 2: 3.5, 3: 6.5}[label]
    for _ in range(n_nuclei):
        cy, cx = rng.uniform(0, size, 2)
        r = radius * rng.uniform(0.7, 1.3)
        ecc = 1.0 + (0.8 if label in (2, 3) else 0.1) * rng.random()
        d2 = ((yy - cy) / r) ** 2 + ((xx - cx) / (r * ecc)) ** 2
        signal += rng.uniform(800, 3000) * np.exp(-d2)
    # slowly varying autofluorescence background
    gy, gx = rng.normal(0, 1, 2)
    background = 300 + 60 * (gy * yy + gx * xx) / size + 40 * rng.random()
    photons = (signal + background) * illum
    counts = rng.poisson(np.clip(photons, 0, None)) + dark + rng.normal(0, 2.0, (size, size))
    return np.clip(np.rint(counts), 0, 65535).astype("<u2").tobytes()


def acquire(num_tiles, size, num_classes, dark_level, seed):
    rng = np.random.default_rng(seed)
    dark, flat, illum = calibration_frames(size, dark_level, rng)
    labels = rng.integers(0, num_classes, num_tiles)
    tiles = [simulate_tile(int(lbl), size, dark, illum, rng) for lbl in labels]
    return tiles, labels.tolist(), dark, flat
