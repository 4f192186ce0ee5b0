"""Vibration features: rectified envelope through a FIR low-pass, kurtosis, crest factor, band energies.

Same conventions as the classic bearing-diagnostics notebooks: the envelope is |x| low-passed and
decimated, its spectrum is integrated in bands around the fault characteristic frequencies.
"""
import math

import numpy as np


def design_lowpass(cutoff_hz, fs, taps):
    """Hamming-windowed sinc, unit DC gain (firwin-like)."""
    fc = cutoff_hz / fs
    mid = (taps - 1) / 2.0
    h = []
    for n in range(taps):
        t = n - mid
        sinc = 2.0 * fc if t == 0 else math.sin(2.0 * math.pi * fc * t) / (math.pi * t)
        w = 0.54 - 0.46 * math.cos(2.0 * math.pi * n / (taps - 1))
        h.append(sinc * w)
    total = sum(h)
    return [v / total for v in h]


def fir_filter(taps, x):
    """Direct-form FIR with zero initial state: y[n] = sum_k taps[k] * x[n - k]."""
    out = []
    n_taps = len(taps)
    for n in range(len(x)):
        acc = 0.0
        k = 0
        while k < n_taps and k <= n:
            acc += taps[k] * x[n - k]
            k += 1
        out.append(acc)
    return out


def moments(x):
    """mean, variance, kurtosis (excess) and crest factor of a window, one pass after the mean."""
    n = len(x)
    mean = sum(x) / n
    s2 = s4 = sq = 0.0
    peak = 0.0
    for v in x:
        d = v - mean
        d2 = d * d
        s2 += d2
        s4 += d2 * d2
        sq += v * v
        a = abs(v)
        if a > peak:
            peak = a
    var = s2 / n
    kurt = (s4 / n) / (var * var) - 3.0 if var > 0.0 else 0.0
    rms = math.sqrt(sq / n)
    crest = peak / rms if rms > 0.0 else 0.0
    return mean, var, kurt, crest


class EnvelopeFeaturizer:
    """Window (channels, samples) -> (decimated envelopes, scalar features)."""

    def __init__(self, fs, cutoff_hz, taps, decimate, bands):
        self.fs = fs
        self.taps = design_lowpass(cutoff_hz, fs, taps)
        self.decimate = decimate
        self.bands = [tuple(b) for b in bands]

    def envelope(self, channel):
        rectified = [abs(v) for v in channel]
        return fir_filter(self.taps, rectified)[:: self.decimate]

    def band_energies(self, env):
        env = np.asarray(env, dtype=np.float64)
        spec = np.abs(np.fft.rfft(env - env.mean())) ** 2 / len(env)
        freqs = np.fft.rfftfreq(len(env), d=self.decimate / self.fs)
        return [float(spec[(freqs >= lo) & (freqs < hi)].sum()) for lo, hi in self.bands]

    def __call__(self, window):
        envs, stats = [], []
        for channel in window.tolist():
            env = self.envelope(channel)
            _, var, kurt, crest = moments(channel)
            _, env_var, env_kurt, _ = moments(env)
            energies = self.band_energies(env)
            envs.append(env)
            stats.extend([math.log(var + 1e-12), kurt, crest, math.log(env_var + 1e-12), env_kurt])
            stats.extend(math.log1p(e) for e in energies)
        return np.asarray(envs, dtype=np.float32), np.asarray(stats, dtype=np.float32)
