"""Filtered backprojection for parallel-beam geometry."""
import math

import numpy as np


def ramp_filter(sino, window="ram-lak"):
    """Filter each projection with |f| in the Fourier domain (zero-padded to a power of two)."""
    n_det = sino.shape[-1]
    n_pad = 1 << int(math.ceil(math.log2(2 * n_det)))
    freqs = np.fft.fftfreq(n_pad)
    filt = 2.0 * np.abs(freqs)
    if window == "hann":
        filt *= 0.5 + 0.5 * np.cos(2.0 * np.pi * freqs)
    proj = np.fft.fft(sino, n=n_pad, axis=-1)
    return np.real(np.fft.ifft(proj * filt, axis=-1))[..., :n_det]


def backproject(filtered, theta, det, size):
    """Smear every filtered projection back over a size x size grid on [-1, 1]^2.

    For each pixel and angle the detector coordinate t = x cos(theta) + y sin(theta)
    is looked up with linear interpolation; samples off the detector contribute 0.
    """
    coords = np.linspace(-1.0, 1.0, size).tolist()
    cos_t = np.cos(theta).tolist()
    sin_t = np.sin(theta).tolist()
    t0 = float(det[0])
    dt = float(det[1] - det[0])
    n_det = len(det)
    image = np.zeros((size, size))
    for a in range(len(theta)):
        proj = filtered[a].tolist()
        c, s = cos_t[a], sin_t[a]
        for r in range(size):
            y = coords[size - 1 - r]
            for col in range(size):
                x = coords[col]
                u = (x * c + y * s - t0) / dt
                i0 = math.floor(u)
                if i0 < 0 or i0 >= n_det - 1:
                    continue
                w = u - i0
                image[r, col] += (1.0 - w) * proj[i0] + w * proj[i0 + 1]
    return image * (math.pi / (2 * len(theta)))
