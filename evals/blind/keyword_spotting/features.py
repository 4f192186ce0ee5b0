"""Band-energy spectrogram, written plainly: frame -> window -> rfft -> band sums."""
import math

import numpy as np


def hann(n):
    return [0.5 - 0.5 * math.cos(2.0 * math.pi * i / (n - 1)) for i in range(n)]


def band_edges(n_bins, n_bands):
    """Contiguous, roughly log-spaced bin ranges [lo, hi) covering bins 1..n_bins-1."""
    edges = [1]
    for b in range(1, n_bands):
        e = int(round(math.exp(math.log(n_bins - 1) * b / n_bands)))
        edges.append(max(e, edges[-1] + 1))
    edges.append(n_bins)
    return [(edges[b], edges[b + 1]) for b in range(n_bands)]


def pcm_to_float(pcm):
    out = []
    for v in pcm:
        out.append(v / 32768.0)
    return out


def band_energies(samples, frame_length, hop_length, bands, window):
    """Return a list of frames, each a list of band energies."""
    n = len(samples)
    rows = []
    start = 0
    while start + frame_length <= n:
        frame = np.empty(frame_length, dtype=np.float64)
        i = 0
        while i < frame_length:
            frame[i] = samples[start + i] * window[i]
            i += 1
        spec = np.fft.rfft(frame)
        power = [c.real * c.real + c.imag * c.imag for c in spec]
        energies = []
        for lo, hi in bands:
            acc = 0.0
            k = lo
            while k < hi:
                acc += power[k]
                k += 1
            energies.append(acc)
        rows.append(energies)
        start += hop_length
    return rows
