"""Synthetic hydrophone clips with odontocete echolocation click trains.

Species differ in click centre frequency, click duration and inter-click interval (ICI):
  0 harbour porpoise (NBHF, ~130 kHz, long narrow-band clicks, short ICI)
  1 common dolphin (broadband ~45 kHz, short clicks)
  2 sperm whale-like (low ~15 kHz, long ICI)
  3 beaked whale (FM upsweep ~35-45 kHz)
"""
import numpy as np

SPECIES = ("phocoena", "delphinus", "physeter", "mesoplodon")
_FC = (130e3, 45e3, 15e3, 38e3)
_DUR = (120e-6, 40e-6, 300e-6, 250e-6)
_ICI = (260, 520, 1200, 900)


def simulate_clip(seed, idx, sr, n):
    rng = np.random.default_rng((seed, idx))
    label = int(rng.integers(len(SPECIES)))
    t = np.arange(n) / sr
    x = rng.normal(0.0, 0.02, n)
    ici = _ICI[label] * rng.uniform(0.8, 1.25)
    pos = rng.uniform(0, ici)
    amp = rng.uniform(0.2, 1.0)
    half = 128
    while pos < n - 64:
        c = pos / sr
        sigma = _DUR[label] / 2.5 * rng.uniform(0.8, 1.2)
        fc = _FC[label] * rng.uniform(0.93, 1.07)
        lo, hi = max(0, int(pos) - half), min(n, int(pos) + half)
        dt = t[lo:hi] - c
        sweep = 3e8 * dt if label == 3 else 0.0
        env = np.exp(-0.5 * (dt / sigma) ** 2)
        x[lo:hi] += amp * rng.uniform(0.5, 1.0) * env * np.cos(2 * np.pi * (fc + sweep) * dt)
        pos += ici * rng.uniform(0.9, 1.1)
    return x.astype(np.float32), label
