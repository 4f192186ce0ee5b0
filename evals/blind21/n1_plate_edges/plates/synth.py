"""Procedural licence-plate crops: a light plate with a dark border and dark glyph blocks."""
import numpy as np


def render_plate(rng, height, width, n_chars):
    img = np.full((height, width), 0.82, dtype=np.float64)
    img += rng.normal(0.0, 0.02, size=(height, width))
    # border
    img[:2, :] = 0.25
    img[-2:, :] = 0.25
    img[:, :2] = 0.25
    img[:, -2:] = 0.25
    margin = 6
    usable = width - 2 * margin
    slot = usable / n_chars
    top = int(rng.integers(5, 8))
    bottom = height - int(rng.integers(5, 8))
    for k in range(n_chars):
        x0 = int(margin + k * slot + rng.integers(1, 3))
        x1 = int(margin + (k + 1) * slot - rng.integers(1, 3))
        glyph = 0.15 + 0.1 * rng.random()
        img[top:bottom, x0:x1] = glyph
        # punch a couple of holes so the glyphs are not plain bars
        for _ in range(int(rng.integers(1, 3))):
            hy = int(rng.integers(top + 2, bottom - 3))
            hx = int(rng.integers(x0, max(x0 + 1, x1 - 1)))
            img[hy:hy + 2, hx:hx + 2] = 0.8
    return np.clip(img, 0.0, 1.0)
