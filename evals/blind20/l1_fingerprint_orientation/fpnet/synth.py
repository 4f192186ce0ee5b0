"""Synthetic fingerprint-like scans: ridge patterns of four pattern types on an elliptic pad."""
import numpy as np

PATTERNS = ("arch", "loop", "whorl", "tented_arch")


def ridge_phase(kind, xx, yy, rng):
    cx = rng.uniform(-0.15, 0.15)
    cy = rng.uniform(-0.15, 0.15)
    x, y = xx - cx, yy - cy
    if kind == 0:    # plain arch: ridges flow side to side with a gentle bump
        return y + 0.25 * np.exp(-4.0 * x * x) * rng.uniform(0.6, 1.4)
    if kind == 1:    # loop: ridges enter one side, recurve around a core
        r = np.sqrt(x * x + y * y) + 1e-6
        return np.where(y > 0, r, 0.7 * x + y + 0.3)
    if kind == 2:    # whorl: concentric / spiral ridges
        r = np.sqrt(x * x + y * y)
        return r + rng.uniform(0.0, 0.06) * np.arctan2(y, x)
    # tented arch: sharp peak in the middle
    return y + 0.5 * np.maximum(0.0, 0.5 - np.abs(x)) * rng.uniform(0.8, 1.2)


def make_scan(index, size, noise_std, seed):
    """Return (uint8 image, pattern label) for one synthetic scan."""
    rng = np.random.default_rng([seed, index])
    kind = int(rng.integers(len(PATTERNS)))
    lin = np.linspace(-1.0, 1.0, size)
    xx, yy = np.meshgrid(lin, lin)
    freq = rng.uniform(7.0, 10.0)
    phase = ridge_phase(kind, xx, yy, rng)
    ridges = 0.5 + 0.5 * np.cos(2.0 * np.pi * freq * phase)
    ax, ay = rng.uniform(0.6, 0.85), rng.uniform(0.75, 0.95)
    pad = ((xx / ax) ** 2 + (yy / ay) ** 2) < 1.0
    pressure = rng.uniform(0.55, 1.0)
    img = np.where(pad, 220.0 - 170.0 * pressure * ridges, 205.0)
    img = img + rng.normal(0.0, noise_std, img.shape)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8), kind
