"""Synthetic H&E tiles: eosin-pink stroma with haematoxylin-purple nuclei.

Tumour tiles carry more, larger and darker nuclei. Each slide gets its own stain
intensity (scanner/staining batch effects), so the raw RGB varies from tile to tile.
"""
import numpy as np

# Typical RGB (0-255) of the pure stains under brightfield.
HAEM_RGB = np.array([72.0, 52.0, 140.0])
EOSIN_RGB = np.array([236.0, 150.0, 190.0])
BACKGROUND = np.array([244.0, 238.0, 242.0])


def _blend(base, colour, alpha):
    return base * (1.0 - alpha[..., None]) + colour * alpha[..., None]


def make_tile(rng, size, tumour, stain_jitter):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    eosin_scale = 1.0 + stain_jitter * rng.standard_normal()
    haem_scale = 1.0 + stain_jitter * rng.standard_normal()
    # Stroma: smooth fibre texture from a few random sinusoids.
    texture = np.zeros((size, size))
    for _ in range(4):
        fx, fy = rng.uniform(0.02, 0.15, size=2)
        phase = rng.uniform(0, 2 * np.pi)
        texture += np.sin(fx * xx + fy * yy + phase)
    stroma_alpha = np.clip(0.55 + 0.12 * texture * eosin_scale, 0.05, 0.95)
    img = _blend(np.broadcast_to(BACKGROUND, (size, size, 3)).copy(), EOSIN_RGB, stroma_alpha)
    # Nuclei: ellipses, alpha falling off towards the rim.
    n_nuclei = rng.integers(22, 40) if tumour else rng.integers(6, 16)
    radius_lo, radius_hi = (4.0, 8.0) if tumour else (2.5, 5.0)
    for _ in range(int(n_nuclei)):
        cy, cx = rng.uniform(0, size, size=2)
        ry, rx = rng.uniform(radius_lo, radius_hi, size=2)
        d = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2
        alpha = np.clip(1.15 - d, 0.0, 1.0) * min(1.0, 0.8 * haem_scale + (0.15 if tumour else 0.0))
        img = _blend(img, HAEM_RGB, alpha)
    img += rng.normal(0.0, 4.0, size=img.shape)  # sensor noise
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def make_tiles(seed, n, size, stain_jitter):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=n)
    tiles = [make_tile(rng, size, bool(lab), stain_jitter) for lab in labels]
    return tiles, labels.tolist()
