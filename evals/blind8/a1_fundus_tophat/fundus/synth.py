"""Synthetic green-channel fundus patches.

Class 0: normal vessels only; 1: microaneurysms (small dark dots); 2: hard exudates
(bright yellow-ish blobs, bright in green); 3: haemorrhages (larger dark blotches).
"""
import numpy as np


def _vessel(img, rng, size):
    # a slightly curved vessel drawn as a dark band
    x0, y0 = rng.uniform(0, size, 2)
    angle = rng.uniform(0, np.pi)
    curv = rng.uniform(-0.04, 0.04)
    width = rng.uniform(0.8, 2.0)
    depth = rng.uniform(25, 55)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    dx, dy = xx - x0, yy - y0
    u = dx * np.cos(angle) + dy * np.sin(angle)
    v = -dx * np.sin(angle) + dy * np.cos(angle)
    dist = np.abs(v - curv * u * u)
    img -= depth * np.exp(-(dist / width) ** 2)


def _blob(img, rng, size, radius, amp):
    cx, cy = rng.uniform(2, size - 2, 2)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    r2 = (xx - cx) ** 2 + (yy - cy) ** 2
    img += amp * np.exp(-r2 / (2.0 * radius * radius))


def make_fundus_patches(n, size, num_classes, seed):
    rng = np.random.default_rng(seed)
    images = np.empty((n, size, size), dtype=np.uint8)
    labels = rng.integers(0, num_classes, size=n)
    for i in range(n):
        base = rng.uniform(90, 150)
        gy, gx = rng.normal(0, 0.8, 2)
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
        img = base + gy * (yy - size / 2) + gx * (xx - size / 2)
        for _ in range(rng.integers(1, 4)):
            _vessel(img, rng, size)
        c = labels[i]
        if c == 1:
            for _ in range(rng.integers(2, 6)):
                _blob(img, rng, size, rng.uniform(0.6, 1.1), -rng.uniform(35, 60))
        elif c == 2:
            for _ in range(rng.integers(1, 4)):
                _blob(img, rng, size, rng.uniform(1.0, 2.2), rng.uniform(40, 80))
        elif c == 3:
            for _ in range(rng.integers(1, 3)):
                _blob(img, rng, size, rng.uniform(2.5, 4.0), -rng.uniform(30, 50))
        img += rng.normal(0, 4.0, img.shape)
        images[i] = np.clip(np.rint(img), 0, 255).astype(np.uint8)
    return images, labels.astype(np.int64)
