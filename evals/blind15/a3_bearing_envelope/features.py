"""Envelope-analysis features for vibration windows (torchaudio-style functional helpers)."""
import math

import numpy as np


def design_lowpass(num_taps, cutoff_hz, sample_rate):
    """Hamming-windowed sinc low-pass, normalised to unit DC gain (like scipy.signal.firwin)."""
    fc = cutoff_hz / sample_rate
    mid = (num_taps - 1) / 2.0
    taps = []
    for n in range(num_taps):
        t = n - mid
        sinc = 2.0 * fc if t == 0 else math.sin(2.0 * math.pi * fc * t) / (math.pi * t)
        window = 0.54 - 0.46 * math.cos(2.0 * math.pi * n / (num_taps - 1))
        taps.append(sinc * window)
    dc = math.fsum(taps)
    return [h / dc for h in taps]


def fir_filter(x, taps):
    """Causal direct-form FIR: y[n] = sum_k h[k] x[n-k], zero initial state."""
    x = list(x)
    out = []
    for n in range(len(x)):
        acc = 0.0
        for k, h in enumerate(taps):
            if k > n:
                break
            acc += h * x[n - k]
        out.append(acc)
    return np.asarray(out, dtype=np.float64)


def envelope(x, taps):
    """Rectify around the mean, then low-pass: the classic amplitude-demodulation envelope."""
    centred = x - x.mean()
    return fir_filter(np.abs(centred), taps)


def moment_stats(x):
    """Kurtosis and crest factor, accumulated sequentially like a streaming sensor node does."""
    n = len(x)
    values = x.tolist()
    mean = sum(values) / n
    m2 = m4 = 0.0
    peak = 0.0
    for v in values:
        d = v - mean
        d2 = d * d
        m2 += d2
        m4 += d2 * d2
        if abs(v) > peak:
            peak = abs(v)
    m2 /= n
    m4 /= n
    kurt = m4 / (m2 * m2) if m2 > 0 else 0.0
    rms = math.sqrt(sum(v * v for v in values) / n)
    crest = peak / rms if rms > 0 else 0.0
    return kurt, crest


def band_energies(env, sample_rate, bands):
    spec = np.abs(np.fft.rfft(env - env.mean())) ** 2
    freqs = np.fft.rfftfreq(len(env), d=1.0 / sample_rate)
    total = spec.sum() + 1e-12
    return [float(spec[(freqs >= lo) & (freqs < hi)].sum() / total) for lo, hi in bands]
