"""Synthetic keyword clips stored as 16-bit PCM, like decoded WAV files."""
import numpy as np


def synth_clips(n, sample_rate, seconds, n_keywords, seed):
    rng = np.random.default_rng(seed)
    length = int(sample_rate * seconds)
    t = np.arange(length) / sample_rate
    labels = rng.integers(0, n_keywords, size=n)
    pcm = np.empty((n, length), dtype=np.int16)
    for i in range(n):
        k = labels[i]
        f0 = 300.0 + 180.0 * k + rng.uniform(-20, 20)
        f1 = f0 * (1.5 + 0.1 * (k % 3))
        env = np.exp(-((t - rng.uniform(0.15, 0.35)) ** 2) / 0.01)
        sweep = np.sin(2 * np.pi * (f0 * t + 0.5 * 200.0 * (k - 2.5) * t ** 2))
        wave = env * (0.6 * sweep + 0.3 * np.sin(2 * np.pi * f1 * t))
        wave += rng.normal(0, 0.05, size=length)
        pcm[i] = np.clip(wave * 12000, -32768, 32767).astype(np.int16)
    return pcm, labels.astype(np.int64)
