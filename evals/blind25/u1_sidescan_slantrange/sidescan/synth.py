"""Synthetic side-scan survey: seabed texture patches seen through a towfish.

Each swath is a stack of pings; every ping holds port and starboard echo intensities
sampled uniformly in *slant* range (two-way travel time), i.e. before any geometric
correction. The towfish altitude drifts slowly from ping to ping.
"""
import numpy as np

CLASSES = ("sand", "mud", "gravel", "rock", "ripples", "seagrass")


def _texture(kind, ground, along, rng):
    """Seabed backscatter strength on a (pings, ground bins) grid."""
    gx, gy = np.meshgrid(ground, along)
    if kind == "sand":
        base = 0.55 + 0.05 * rng.standard_normal(gx.shape)
    elif kind == "mud":
        base = 0.25 + 0.02 * rng.standard_normal(gx.shape)
    elif kind == "gravel":
        base = 0.6 + 0.25 * rng.random(gx.shape) ** 3
    elif kind == "rock":
        cells = rng.random((8, 12))
        iy = np.minimum((gy / (along[-1] + 1e-6) * 8).astype(int), 7)
        ix = np.minimum((gx / (ground[-1] + 1e-6) * 12).astype(int), 11)
        base = 0.35 + 0.6 * cells[iy, ix]
    elif kind == "ripples":
        k = rng.uniform(1.2, 2.5)
        theta = rng.uniform(-0.6, 0.6)
        base = 0.5 + 0.3 * np.sin(k * (gx * np.cos(theta) + gy * np.sin(theta)))
    else:  # seagrass: patchy low returns with shadows
        blobs = rng.random((6, 10)) > 0.5
        iy = np.minimum((gy / (along[-1] + 1e-6) * 6).astype(int), 5)
        ix = np.minimum((gx / (ground[-1] + 1e-6) * 10).astype(int), 9)
        base = np.where(blobs[iy, ix], 0.15, 0.45) + 0.05 * rng.standard_normal(gx.shape)
    return np.clip(base, 0.02, None)


def make_survey(n_swaths, n_pings, n_slant, range_res, seed):
    """Return raw slant-range swaths (N, 2, P, S) float32, altitudes (N, P) float32, labels (N,)."""
    rng = np.random.default_rng(seed)
    slant = (np.arange(n_slant) + 0.5) * range_res
    ground_fine = np.linspace(0.0, slant[-1], 4 * n_slant)
    along = np.arange(n_pings) * 0.4
    swaths = np.empty((n_swaths, 2, n_pings, n_slant), np.float32)
    alts = np.empty((n_swaths, n_pings), np.float32)
    labels = rng.integers(0, len(CLASSES), size=n_swaths)
    for n in range(n_swaths):
        h0 = rng.uniform(5.0, 11.0)
        drift = np.cumsum(rng.normal(0.0, 0.05, n_pings))
        alt = np.clip(h0 + drift, 3.0, 14.0)
        alts[n] = alt
        for side in range(2):
            tex = _texture(CLASSES[labels[n]], ground_fine, along, rng)
            for p in range(n_pings):
                h = alt[p]
                g = np.sqrt(np.maximum(slant ** 2 - h ** 2, 0.0))
                refl = np.array([np.interp(g, ground_fine, tex[p])])[0]
                graze = h / slant  # sin of the grazing angle
                loss = np.exp(-0.02 * slant) / (slant ** 2)
                echo = refl * graze * loss * 400.0
                echo = np.where(slant < h, 0.002, echo)  # water column
                speckle = rng.rayleigh(1.0, n_slant)
                swaths[n, side, p] = echo * speckle
    return swaths, alts, labels
