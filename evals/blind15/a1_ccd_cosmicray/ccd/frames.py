"""Synthetic night of raw CCD exposures (uint16 ADU) with a source catalogue."""
import numpy as np

from .calib import MasterFrames


def _bias(rng, n):
    level = 1000.0 + 3.0 * np.sin(np.arange(n) / 17.0)[:, None]  # row-correlated pattern
    return level + rng.normal(0.0, 1.2, size=(n, n))


def _dark(rng, n):
    dark = rng.gamma(2.0, 0.004, size=(n, n))
    hot = rng.random((n, n)) < 0.0015
    dark[hot] += rng.uniform(0.5, 3.0, size=int(hot.sum()))
    return dark  # ADU / s


def _flat(rng, n):
    yy, xx = np.mgrid[0:n, 0:n] / (n - 1) - 0.5
    vignette = 1.0 - 0.18 * (xx ** 2 + yy ** 2)
    return vignette * rng.normal(1.0, 0.012, size=(n, n))


def _psf(n, x0, y0, sigma, flux):
    half = 9
    ys = np.arange(max(0, int(y0) - half), min(n, int(y0) + half + 1))
    xs = np.arange(max(0, int(x0) - half), min(n, int(x0) + half + 1))
    g = np.exp(-((ys[:, None] - y0) ** 2 + (xs[None, :] - x0) ** 2) / (2.0 * sigma ** 2))
    return ys, xs, flux * g / (2.0 * np.pi * sigma ** 2)


def _cosmic_rays(rng, n, rate):
    hits = np.zeros((n, n))
    count = rng.poisson(rate * n * n)
    for _ in range(count):
        y, x = rng.integers(0, n, size=2)
        length = int(rng.integers(1, 4))
        dy, dx = rng.choice([-1, 0, 1], size=2)
        energy = rng.uniform(300.0, 4000.0)
        for k in range(length):
            yy, xx = y + k * dy, x + k * dx
            if 0 <= yy < n and 0 <= xx < n:
                hits[yy, xx] += energy / (k + 1)
    return hits


def simulate_night(seed, n_exposures, frame_size, sources_per_frame, exptime, gain, read_noise, cr_rate,
                   margin=26):
    rng = np.random.default_rng(seed)
    n = frame_size
    bias, dark, flat = _bias(rng, n), _dark(rng, n), _flat(rng, n)
    masters = MasterFrames(bias=bias, dark=dark, flat=flat)
    frames, catalogue = [], []
    for e in range(n_exposures):
        sky = rng.uniform(80.0, 220.0)
        electrons = np.full((n, n), sky)
        for _ in range(sources_per_frame):
            x0, y0 = rng.uniform(margin, n - margin, size=2)
            extended = bool(rng.random() < 0.5)
            sigma = rng.uniform(2.2, 3.6) if extended else rng.uniform(1.0, 1.5)
            flux = 10 ** rng.uniform(3.2, 4.6)
            ys, xs, stamp = _psf(n, x0, y0, sigma, flux)
            electrons[np.ix_(ys, xs)] += stamp
            catalogue.append((e, int(round(y0)), int(round(x0)), int(extended)))
        signal = rng.poisson(electrons * flat * gain) / gain + dark * exptime
        raw = bias + signal + rng.normal(0.0, read_noise / gain, size=(n, n)) + _cosmic_rays(rng, n, cr_rate)
        frames.append(np.clip(np.rint(raw), 0, 65535).astype(np.uint16))
    return frames, masters, catalogue
