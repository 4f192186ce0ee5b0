"""Render receipt-like scans: thermal paper, a tint, lines of glyph blobs, a small skew, sensor noise."""
import numpy as np

STORES = 5


def render_receipt(rng, height, width, store):
    # Thermal paper: bright, a soft vertical fade and a per-scan colour cast.
    paper = 228 + rng.integers(-10, 12)
    fade = np.linspace(0, rng.uniform(8, 30), height)[:, None]
    gray = np.full((height, width), float(paper)) - fade
    spacing = 7 + store  # each chain prints with its own line pitch
    margin = 3 + store % 3
    y = int(rng.integers(3, 7))
    while y < height - 6:
        n_glyphs = int(rng.integers(width // 8, width // 4))
        x = margin + int(rng.integers(0, 4))
        for _ in range(n_glyphs):
            gw = int(rng.integers(2, 5))
            if x + gw >= width - margin:
                break
            gh = int(rng.integers(3, 5))
            ink = rng.uniform(40, 110)
            gray[y:y + gh, x:x + gw] = ink
            x += gw + int(rng.integers(1, 3)) + (4 if rng.random() < 0.12 else 0)
        y += spacing + int(rng.integers(0, 2))
    # The scanner feeds the slip at a small angle: shear the columns.
    slope = np.tan(np.deg2rad(rng.uniform(-5.0, 5.0)))
    cols = np.arange(width) - width // 2
    shifts = np.rint(cols * slope).astype(int)
    sheared = np.full_like(gray, float(paper))
    for x, s in enumerate(shifts):
        src = np.arange(height) - s
        ok = (src >= 0) & (src < height)
        sheared[ok, x] = gray[src[ok], x]
    sheared += rng.normal(0.0, 6.0, size=sheared.shape)
    tint = np.array([1.0, rng.uniform(0.96, 1.0), rng.uniform(0.88, 0.98)])
    rgb = np.clip(sheared[:, :, None] * tint[None, None, :], 0, 255)
    return rgb.astype(np.uint8)
