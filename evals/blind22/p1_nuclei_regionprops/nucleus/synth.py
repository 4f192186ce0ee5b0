"""Synthetic fluorescence tiles: elliptical nuclei with a soft edge, Poisson shot noise, 12-bit camera."""
import numpy as np


def render_tile(rng, size, n_range, radius_range, background, peak, bit_depth):
    signal = np.full((size, size), background, dtype=np.float64)
    n = int(rng.integers(n_range[0], n_range[1] + 1))
    reach = int(np.ceil(radius_range[1] * 1.6))
    centres = rng.uniform(2, size - 2, size=(n, 2))
    radii = rng.uniform(*radius_range, size=(n, 2))
    thetas = rng.uniform(0, np.pi, size=n)
    gains = peak * rng.uniform(0.5, 1.2, size=n)
    for (cy, cx), (ry, rx), theta, brightness in zip(centres, radii, thetas, gains):
        # only touch the nucleus' bounding box
        y0, y1 = max(int(cy) - reach, 0), min(int(cy) + reach + 1, size)
        x0, x1 = max(int(cx) - reach, 0), min(int(cx) + reach + 1, size)
        dy = np.arange(y0, y1, dtype=np.float64)[:, None] - cy
        dx = np.arange(x0, x1, dtype=np.float64)[None, :] - cx
        u = (dy * np.cos(theta) + dx * np.sin(theta)) / ry
        v = (-dy * np.sin(theta) + dx * np.cos(theta)) / rx
        r2 = u * u + v * v
        signal[y0:y1, x0:x1] += brightness / (1.0 + np.exp(np.minimum(6.0 * (r2 - 1.0), 60.0)))
    counts = rng.poisson(signal)
    return np.clip(counts, 0, 2 ** bit_depth - 1).astype(np.uint16)
