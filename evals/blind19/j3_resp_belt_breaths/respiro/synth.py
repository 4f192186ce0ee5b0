"""Synthetic thoraco-abdominal belt recordings (deterministic from a seed)."""
import numpy as np

CLASSES = ("normal", "tachypnoea", "bradypnoea", "apnoeic")
RATE_BPM = {0: (12.0, 18.0), 1: (22.0, 32.0), 2: (6.0, 10.0), 3: (11.0, 17.0)}


def synth_record(rng, label, fs, seconds):
    n = int(fs * seconds)
    t = np.arange(n) / fs
    lo, hi = RATE_BPM[label]
    base_rate = rng.uniform(lo, hi) / 60.0
    wobble = 1.0 + 0.12 * np.sin(2 * np.pi * t / rng.uniform(20, 60) + rng.uniform(0, 6.28))
    rate = base_rate * wobble * np.exp(rng.normal(0, 0.04, n).cumsum() / np.sqrt(n))
    phase = 2 * np.pi * np.cumsum(rate) / fs
    # inspiration is faster than expiration: skewed wave
    wave = np.sin(phase) + 0.25 * np.sin(2 * phase + 0.8)
    amp = rng.uniform(0.6, 1.4) * (1.0 + 0.2 * np.sin(2 * np.pi * t / rng.uniform(30, 90)))
    if label == 3:
        for _ in range(rng.integers(4, 9)):
            start = rng.integers(0, n - int(25 * fs))
            length = int(rng.uniform(10, 25) * fs)
            amp[start:start + length] *= 0.05
    drift = np.cumsum(rng.normal(0, 0.02, n))
    drift += 0.8 * np.sin(2 * np.pi * t / rng.uniform(80, 200))
    for _ in range(rng.integers(0, 3)):  # posture changes: baseline steps
        drift[rng.integers(0, n):] += rng.normal(0, 0.8)
    noise = rng.normal(0, 0.05, n)
    return (amp * wave + drift + noise).astype(np.float32)
