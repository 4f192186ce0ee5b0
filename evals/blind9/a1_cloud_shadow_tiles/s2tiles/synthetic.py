"""Synthetic Sentinel-2 L2A-like tiles (B02, B03, B04, B08, B11, B12 as uint16 DN, scale 1e4)."""
import numpy as np

BANDS = ("B02", "B03", "B04", "B08", "B11", "B12")

# rough mean surface reflectance per land-cover class
_CLASS_SPECTRA = np.array([
    [0.035, 0.060, 0.045, 0.380, 0.210, 0.110],  # cropland / vegetation
    [0.030, 0.055, 0.035, 0.290, 0.150, 0.070],  # forest
    [0.070, 0.060, 0.040, 0.025, 0.012, 0.008],  # water
    [0.090, 0.100, 0.110, 0.200, 0.260, 0.220],  # built-up
    [0.120, 0.150, 0.190, 0.260, 0.350, 0.300],  # bare soil
], dtype=np.float64)


def _blob(rng, size, n):
    yy, xx = np.mgrid[0:size, 0:size]
    field = np.zeros((size, size))
    for _ in range(n):
        cy, cx = rng.uniform(0, size, 2)
        r = rng.uniform(2.0, size / 3.5)
        field += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))
    return field


def make_tiles(num_tiles, size, num_classes, cloud_fraction, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, num_classes, num_tiles)
    tiles = np.empty((num_tiles, len(BANDS), size, size), dtype=np.uint16)
    for i in range(num_tiles):
        base = _CLASS_SPECTRA[labels[i]]
        # a second class mixed in as a patch, so tiles are not uniform
        other = _CLASS_SPECTRA[rng.integers(0, num_classes)]
        mix = (_blob(rng, size, 2) > 0.6)[None]
        refl = np.where(mix, other[:, None, None], base[:, None, None])
        refl = refl * rng.normal(1.0, 0.08, (len(BANDS), size, size))
        if rng.random() < cloud_fraction:
            cloud = np.clip(_blob(rng, size, rng.integers(1, 4)) - 0.3, 0, None)
            cloud = np.minimum(cloud * rng.uniform(0.5, 1.2), 0.8)
            sy, sx = rng.integers(2, 6, 2)
            shadow = np.roll(np.roll(cloud, sy, axis=0), sx, axis=1)
            shadow[:sy] = 0
            shadow[:, :sx] = 0
            refl = refl * (1.0 - 0.75 * np.minimum(shadow, 1.0))[None]
            white = np.array([0.45, 0.44, 0.43, 0.42, 0.30, 0.22])[:, None, None]
            refl = refl * (1 - cloud)[None] + white * cloud[None]
        tiles[i] = np.clip(np.round(refl * 10000.0), 1, 12000).astype(np.uint16)
    return tiles, labels.astype(np.int64)
