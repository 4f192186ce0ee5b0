"""Sky scenes and raw exposures (uint16 ADU frames with shot noise, read noise and cosmic rays)."""
import numpy as np

STAR, GALAXY = 0, 1


def make_scene(size, n_lo, n_hi, rng):
    """Noise-free sky (e-/s) and its source list [(y, x, kind)]."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    sky = np.full((size, size), rng.uniform(3.0, 8.0))
    sources = []
    for _ in range(int(rng.integers(n_lo, n_hi + 1))):
        y, x = rng.uniform(3.0, size - 4.0, size=2)
        kind = int(rng.random() < 0.45)
        flux = rng.lognormal(6.5, 0.7)
        if kind == STAR:
            s = rng.uniform(1.0, 1.6)
            prof = np.exp(-((yy - y) ** 2 + (xx - x) ** 2) / (2 * s * s)) / (2 * np.pi * s * s)
        else:
            a, q, th = rng.uniform(2.0, 4.0), rng.uniform(0.3, 0.9), rng.uniform(0, np.pi)
            u = (xx - x) * np.cos(th) + (yy - y) * np.sin(th)
            v = -(xx - x) * np.sin(th) + (yy - y) * np.cos(th)
            prof = np.exp(-np.sqrt(u * u + (v / q) ** 2) / a)
            prof /= prof.sum()
        sky += flux * prof
        sources.append((int(round(y)), int(round(x)), kind))
    return sky, sources


def expose(scene, masters, exptime, gain, read_noise, cosmic_rate, rng):
    """One raw frame: Poisson electrons through the flat, dark, bias, read noise, cosmic-ray hits."""
    size = scene.shape[0]
    electrons = rng.poisson(scene * masters.flat * exptime + masters.dark * exptime * gain)
    adu = electrons / gain + masters.bias + rng.normal(0.0, read_noise / gain, size=scene.shape)
    n_hits = int(rng.poisson(cosmic_rate * exptime))
    for _ in range(n_hits):
        y, x = rng.integers(1, size - 1, size=2)
        energy = rng.uniform(300.0, 4000.0)
        length = int(rng.integers(1, 4))
        dy, dx = (0, 1) if rng.random() < 0.5 else (1, 0)
        for k in range(length):
            yk, xk = min(y + k * dy, size - 1), min(x + k * dx, size - 1)
            adu[yk, xk] += energy * (0.6 ** k)
    return np.clip(np.rint(adu), 0, 65535).astype(np.uint16), n_hits
