"""Synthetic Sentinel-2-like per-pixel time series (6 bands x N dates) for crop-type mapping."""
import numpy as np

CROPS = ["wheat", "maize", "soybean", "rice", "grassland", "forest", "fallow", "orchard"]
BANDS = ["B2", "B3", "B4", "B8", "B11", "B12"]

# green-up day, senescence day, peak greenness, baseline greenness
PHENOLOGY = {
    "wheat": (80, 190, 0.80, 0.15),
    "maize": (150, 260, 0.85, 0.10),
    "soybean": (165, 265, 0.75, 0.10),
    "rice": (130, 250, 0.70, 0.05),
    "grassland": (90, 300, 0.55, 0.30),
    "forest": (110, 290, 0.45, 0.45),
    "fallow": (120, 200, 0.30, 0.10),
    "orchard": (100, 280, 0.50, 0.30),
}


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def make_series(n_pixels, n_dates, cloud_prob, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CROPS), size=n_pixels)
    doy = np.linspace(15, 350, n_dates)
    params = np.array([PHENOLOGY[c] for c in CROPS])[labels]
    green_up = params[:, 0:1] + rng.normal(0, 8, size=(n_pixels, 1))
    senesce = params[:, 1:2] + rng.normal(0, 8, size=(n_pixels, 1))
    peak = params[:, 2:3] * rng.uniform(0.85, 1.1, size=(n_pixels, 1))
    base = params[:, 3:4]
    g = base + (peak - base) * (_sigmoid((doy - green_up) / 9.0) - _sigmoid((doy - senesce) / 12.0))
    soil = rng.uniform(0.08, 0.2, size=(n_pixels, 1))
    bands = np.stack([
        0.03 + 0.5 * soil * (1 - g),           # blue
        0.05 + 0.6 * soil * (1 - g) + 0.03 * g,  # green
        0.02 + 0.9 * soil * (1 - g),           # red
        0.15 + 0.45 * g + 0.3 * soil,          # nir
        0.10 + 1.2 * soil * (1 - 0.5 * g),     # swir1
        0.05 + 1.0 * soil * (1 - 0.7 * g),     # swir2
    ], axis=1)
    bands += rng.normal(0, 0.01, size=bands.shape)
    cloudy = rng.random((n_pixels, 1, n_dates)) < cloud_prob
    bands = np.where(cloudy, 0.35 + rng.normal(0, 0.05, size=bands.shape), bands)
    return bands.astype(np.float32), labels
