"""Generalised Lomb-Scargle periodogram (floating mean, weighted; Zechmeister & Kuerster 2009)."""
import numpy as np


def frequency_grid(f_min, f_max, n_freq):
    return np.geomspace(f_min, f_max, n_freq)


def lomb_scargle(t, y, dy, freqs):
    """Normalised GLS power (0..1) of the series y(t) +- dy at each frequency (cycles/day)."""
    w = 1.0 / dy ** 2
    w = w / w.sum()
    Y = np.sum(w * y)
    YY_hat = np.sum(w * y * y) - Y * Y
    power = np.zeros(len(freqs))
    for i, f in enumerate(freqs):
        omega = 2.0 * np.pi * f
        c = np.cos(omega * t)
        s = np.sin(omega * t)
        C = np.sum(w * c)
        S = np.sum(w * s)
        YC_hat = np.sum(w * y * c) - Y * C
        YS_hat = np.sum(w * y * s) - Y * S
        CC_hat = np.sum(w * c * c) - C * C
        SS_hat = np.sum(w * s * s) - S * S
        CS_hat = np.sum(w * c * s) - C * S
        D = CC_hat * SS_hat - CS_hat ** 2
        power[i] = (SS_hat * YC_hat ** 2 + CC_hat * YS_hat ** 2
                    - 2.0 * CS_hat * YC_hat * YS_hat) / (YY_hat * D)
    return power


def phase_fold(t, y, freq, n_bins):
    """Mean magnitude (relative to the median) in phase bins at the given frequency."""
    phase = (t * freq) % 1.0
    idx = np.minimum((phase * n_bins).astype(np.int64), n_bins - 1)
    sums = np.bincount(idx, weights=y - np.median(y), minlength=n_bins)
    counts = np.bincount(idx, minlength=n_bins)
    return np.where(counts > 0, sums / np.maximum(counts, 1), 0.0)
