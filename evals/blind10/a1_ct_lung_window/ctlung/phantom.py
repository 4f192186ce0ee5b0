"""Synthetic chest CT slices: body, two lungs with vessels, sometimes a nodule, a table, noise."""
import numpy as np


def _ellipse(yy, xx, cy, cx, ry, rx):
    return ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1.0


def make_slice(rng, size=128):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    hu = np.full((size, size), -1000.0)
    c = size / 2
    body_ry, body_rx = size * rng.uniform(0.34, 0.40), size * rng.uniform(0.44, 0.48)
    hu[_ellipse(yy, xx, c, c, body_ry, body_rx)] = 40.0
    # subcutaneous fat ring
    fat = _ellipse(yy, xx, c, c, body_ry, body_rx) & ~_ellipse(yy, xx, c, c, body_ry - 4, body_rx - 4)
    hu[fat] = -90.0
    lungs = []
    for side in (-1, 1):
        cy = c + rng.uniform(-2, 2)
        cx = c + side * size * rng.uniform(0.19, 0.22)
        ry, rx = body_ry * rng.uniform(0.60, 0.70), size * rng.uniform(0.13, 0.16)
        lung = _ellipse(yy, xx, cy, cx, ry, rx)
        hu[lung] = -860.0
        lungs.append((cy, cx, ry, rx))
        # vessels: small bright discs inside the lung
        for _ in range(rng.integers(6, 14)):
            ang = rng.uniform(0, 2 * np.pi)
            rad = rng.uniform(0.1, 0.8)
            vy, vx = cy + rad * ry * np.sin(ang), cx + rad * rx * np.cos(ang)
            hu[_ellipse(yy, xx, vy, vx, 1.3, 1.3) & lung] = 30.0
    # mediastinum and spine
    hu[_ellipse(yy, xx, c - 2, c, body_ry * 0.45, size * 0.07)] = 45.0
    hu[_ellipse(yy, xx, c + body_ry * 0.75, c, 6, 6)] = 700.0
    # patient table
    hu[int(c + body_ry + 6):int(c + body_ry + 9), 8:size - 8] = 300.0
    label = int(rng.random() < 0.5)
    if label:
        cy, cx, ry, rx = lungs[rng.integers(0, 2)]
        ang, rad = rng.uniform(0, 2 * np.pi), rng.uniform(0.2, 0.6)
        ny, nx = cy + rad * ry * np.sin(ang), cx + rad * rx * np.cos(ang)
        hu[_ellipse(yy, xx, ny, nx, rng.uniform(2.5, 4.5), rng.uniform(2.5, 4.5))] = 60.0
    hu += rng.normal(0.0, 18.0, size=hu.shape)
    return np.clip(hu, -1024, 3071), label
