"""Coloured detector noise and inspiral-like chirps."""
import numpy as np


def design_asd(freqs):
    """A rough detector amplitude spectral density: seismic wall, thermal 1/f, shot-noise rise."""
    f = np.maximum(freqs, 1.0)
    return (f / 15.0) ** -4.0 + 0.6 * (f / 60.0) ** -1.0 + 0.4 + (f / 300.0) ** 2


def coloured_noise(n, length, fs, rng):
    freqs = np.fft.rfftfreq(length, 1.0 / fs)
    asd = design_asd(freqs)
    spec = (rng.standard_normal((n, freqs.size)) + 1j * rng.standard_normal((n, freqs.size))) * asd
    return np.fft.irfft(spec, n=length, axis=-1)


def chirp(length, fs, t_merge, f0, amp, phase):
    t = np.arange(length) / fs
    tau = np.clip(t_merge - t, 1.0 / fs, None)
    freq = f0 * (tau / t_merge) ** (-3.0 / 8.0)
    freq = np.minimum(freq, 0.45 * fs)
    ph = phase + 2.0 * np.pi * np.cumsum(freq) / fs
    env = amp * (tau / t_merge) ** (-0.25)
    h = env * np.cos(ph)
    h[t > t_merge] *= np.exp(-(t[t > t_merge] - t_merge) * 40.0)  # ringdown
    return h


def make_segments(n, length, fs, seed, snr_range):
    rng = np.random.default_rng(seed)
    strain = coloured_noise(n, length, fs, rng)
    labels = (rng.random(n) < 0.5).astype(np.int64)
    scale = strain.std()
    for i in np.flatnonzero(labels):
        t_merge = rng.uniform(0.55, 0.9) * length / fs
        strain[i] += chirp(length, fs, t_merge, rng.uniform(25.0, 45.0),
                           rng.uniform(*snr_range) * scale * 0.05, rng.uniform(0, 2 * np.pi))
    return strain, labels
