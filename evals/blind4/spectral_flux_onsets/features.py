"""Onset-strength features (librosa.onset-style spectral flux), numpy STFT + per-frame band flux."""
import numpy as np


def stft_mag(y, n_fft=256, hop=128):
    win = np.hanning(n_fft)
    frames = np.lib.stride_tricks.sliding_window_view(y, n_fft)[::hop]
    return np.abs(np.fft.rfft(frames * win, axis=1))


def band_edges(n_bins, n_bands):
    step = n_bins / n_bands
    edges = []
    for b in range(n_bands):
        lo = int(round(b * step))
        hi = int(round((b + 1) * step))
        edges.append((lo, max(hi, lo + 1)))
    return edges


def band_flux(S, edges):
    """Half-wave rectified spectral difference, summed per band, for every frame."""
    out = []
    prev = S[0]
    for cur in S:
        row = []
        for lo, hi in edges:
            acc = 0.0
            k = lo
            while k < hi:
                d = cur[k] - prev[k]
                if d > 0.0:
                    acc += d
                k += 1
            row.append(acc)
        out.append(row)
        prev = cur
    return out


def centroid(S):
    cents = []
    for cur in S:
        num = sum(k * m for k, m in enumerate(cur))
        den = sum(cur) + 1e-8
        cents.append(num / den)
    return cents


def onset_features(y, n_fft, hop, n_bands):
    S = stft_mag(y, n_fft, hop).tolist()
    edges = band_edges(len(S[0]), n_bands)
    flux = band_flux(S, edges)
    cents = centroid(S)
    n_bins = len(S[0])
    feats = [[f ** 0.5 for f in row] + [c / n_bins] for row, c in zip(flux, cents)]
    return np.asarray(feats, dtype=np.float32).T  # (n_bands + 1, frames)
