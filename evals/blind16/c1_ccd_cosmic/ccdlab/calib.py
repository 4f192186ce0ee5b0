"""Master calibration frames (bias, dark, flat) as a pipeline would load them from a night's calibs."""
from dataclasses import dataclass

import numpy as np


@dataclass
class MasterFrames:
    bias: np.ndarray   # ADU
    dark: np.ndarray   # ADU / s
    flat: np.ndarray   # normalised to median 1

    @classmethod
    def synthesize(cls, size, bias_level, dark_rate, rng):
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
        # bias: level + column pattern + a weak gradient along the readout direction
        cols = rng.normal(0.0, 1.5, size=size)
        bias = bias_level + cols[None, :] + 0.02 * yy
        # dark: uniform rate with a few warm pixels
        dark = np.full((size, size), dark_rate)
        warm = rng.integers(0, size, size=(6, 2))
        dark[warm[:, 0], warm[:, 1]] *= rng.uniform(20.0, 60.0, size=6)
        # flat: vignetting + pixel-to-pixel response + a dust donut
        c = (size - 1) / 2.0
        r2 = ((yy - c) ** 2 + (xx - c) ** 2) / (c * c)
        flat = (1.0 - 0.12 * r2) * rng.normal(1.0, 0.01, size=(size, size))
        dy, dx = rng.uniform(8, size - 8, size=2)
        rd = np.hypot(yy - dy, xx - dx)
        flat *= 1.0 - 0.08 * ((rd > 2.0) & (rd < 4.0))
        flat /= np.median(flat)
        return cls(bias=bias, dark=dark, flat=flat)
