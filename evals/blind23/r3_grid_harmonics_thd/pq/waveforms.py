"""Synthetic power-quality disturbances on a 50 Hz, 1 p.u. voltage (IEEE 1159 style classes)."""
import numpy as np

CLASSES = ["normal", "sag", "swell", "harmonics", "interruption", "oscillatory_transient", "flicker", "notch"]


def synthesize(label, n, fs, f0, rng):
    t = np.arange(n) / fs
    phase = rng.uniform(0, 2 * np.pi)
    amp = np.ones(n)
    t0, t1 = sorted(rng.uniform(0, n / fs, 2))
    inside = (t >= t0) & (t <= t1)
    extra = np.zeros(n)
    if label == 1:
        amp[inside] = rng.uniform(0.1, 0.9)
    elif label == 2:
        amp[inside] = rng.uniform(1.1, 1.8)
    elif label == 4:
        amp[inside] = rng.uniform(0.0, 0.1)
    elif label == 6:
        amp = 1.0 + rng.uniform(0.05, 0.2) * np.sin(2 * np.pi * rng.uniform(8, 25) * t)
    x = amp * np.sin(2 * np.pi * f0 * t + phase)
    if label == 3:
        for h in (3, 5, 7, 11, 13):
            x += rng.uniform(0.0, 0.15) / (h / 3) * np.sin(2 * np.pi * h * f0 * t + rng.uniform(0, 2 * np.pi))
    elif label == 5:
        ft = rng.uniform(300, 900)
        decay = np.exp(-np.maximum(t - t0, 0) * rng.uniform(8, 40) * f0 / 10) * (t >= t0)
        extra = rng.uniform(0.1, 0.8) * decay * np.sin(2 * np.pi * ft * (t - t0))
    elif label == 7:
        cycle_pos = (t * f0 + phase / (2 * np.pi)) % 1.0
        notch = (np.abs(cycle_pos - 0.25) < 0.02) | (np.abs(cycle_pos - 0.75) < 0.02)
        x = np.where(notch, x * rng.uniform(0.3, 0.7), x)
    # background distortion present on every feeder
    x = x + 0.02 * np.sin(2 * np.pi * 5 * f0 * t + rng.uniform(0, 2 * np.pi)) + extra
    return x
