"""Welch PSD estimate, whitening and band-pass, per segment (as in a gwpy-style pipeline)."""
import math

import numpy as np


def hann(n):
    return 0.5 - 0.5 * np.cos(2.0 * np.pi * np.arange(n) / n)


def tukey(n, alpha=0.1):
    w = np.ones(n)
    m = int(alpha * n / 2)
    ramp = 0.5 * (1 - np.cos(np.pi * np.arange(m) / m))
    w[:m] = ramp
    w[n - m:] = ramp[::-1]
    return w


def welch_psd(x, fs, nperseg, overlap):
    """One-sided PSD by averaging Hann-windowed periodograms (mean average)."""
    win = hann(nperseg)
    step = nperseg - overlap
    acc = np.zeros(nperseg // 2 + 1)
    count = 0
    for start in range(0, len(x) - nperseg + 1, step):
        seg = x[start:start + nperseg]
        seg = (seg - seg.mean()) * win
        spec = np.fft.rfft(seg)
        acc += spec.real ** 2 + spec.imag ** 2
        count += 1
    psd = acc / count / (fs * (win ** 2).sum())
    psd[1:-1] *= 2.0
    return np.fft.rfftfreq(nperseg, 1.0 / fs), psd


def interp_psd(freqs, psd_freqs, psd):
    """Linear interpolation of the coarse Welch PSD onto the segment's FFT grid."""
    wf = psd_freqs.tolist()
    wp = psd.tolist()
    out = []
    last = len(wf) - 2
    for f in freqs.tolist():
        j = 0
        while j < last and wf[j + 1] < f:
            j += 1
        out.append(wp[j] + (f - wf[j]) * (wp[j + 1] - wp[j]) / (wf[j + 1] - wf[j]))
    return np.array(out)


def bandpass_mask(freqs, f_lo, f_hi, taper):
    """Flat pass band with raised-cosine edges of width `taper` Hz."""
    m = np.zeros_like(freqs)
    m[(freqs >= f_lo) & (freqs <= f_hi)] = 1.0
    lo = (freqs >= f_lo - taper) & (freqs < f_lo)
    m[lo] = 0.5 - 0.5 * np.cos(np.pi * (freqs[lo] - (f_lo - taper)) / taper)
    hi = (freqs > f_hi) & (freqs <= f_hi + taper)
    m[hi] = 0.5 + 0.5 * np.cos(np.pi * (freqs[hi] - f_hi) / taper)
    return m


def whiten(x, fs, psd_freqs, psd, mask, window):
    """Divide the segment's spectrum by its ASD and apply the band-pass mask."""
    spec = np.fft.rfft(x * window)
    freqs = np.fft.rfftfreq(len(x), 1.0 / fs)
    psd_i = interp_psd(freqs, psd_freqs, psd)
    re, im = spec.real.tolist(), spec.imag.tolist()
    gains = mask.tolist()
    norm = fs / 2.0
    for k in range(len(re)):
        g = gains[k] / math.sqrt(psd_i[k] * norm)
        re[k] = re[k] * g
        im[k] = im[k] * g
    out = np.empty(len(re), dtype=np.complex128)
    out.real = re
    out.imag = im
    return np.fft.irfft(out, n=len(x))
