"""Synthetic bird calls: each species has a call shape (tonal sweep, trill, harmonic
stack, buzzy chirp...) with its own frequency range and repetition rate, over pink-ish noise."""
import numpy as np

SPECIES = [
    # (f_lo, f_hi, call_len_s, gap_s, kind)
    (1800.0, 3200.0, 0.08, 0.05, "down_sweep"),
    (900.0, 1400.0, 0.15, 0.10, "harmonic"),
    (2500.0, 3500.0, 0.03, 0.02, "trill"),
    (600.0, 2400.0, 0.10, 0.12, "up_sweep"),
    (1500.0, 1900.0, 0.20, 0.06, "buzz"),
    (1000.0, 3000.0, 0.05, 0.15, "chip"),
]


def _call(kind, f_lo, f_hi, n, sr, rng):
    t = np.arange(n) / sr
    env = np.sin(np.pi * np.arange(n) / max(n - 1, 1)) ** 2
    if kind == "down_sweep":
        f = np.linspace(f_hi, f_lo, n)
    elif kind == "up_sweep":
        f = np.linspace(f_lo, f_hi, n)
    elif kind == "trill":
        f = f_lo + (f_hi - f_lo) * (0.5 + 0.5 * np.sin(2 * np.pi * 60 * t))
    elif kind == "buzz":
        f = np.full(n, rng.uniform(f_lo, f_hi))
        env = env * (0.6 + 0.4 * np.sign(np.sin(2 * np.pi * 90 * t)))
    elif kind == "chip":
        f = np.full(n, rng.uniform(f_lo, f_hi))
    else:  # harmonic
        f0 = rng.uniform(f_lo, f_hi) / 2
        phase = 2 * np.pi * f0 * t
        return env * (np.sin(phase) + 0.6 * np.sin(2 * phase) + 0.3 * np.sin(3 * phase))
    phase = 2 * np.pi * np.cumsum(f) / sr
    return env * np.sin(phase)


def make_clips(num_clips, sr, seconds, num_species, snr_lo, snr_hi, seed):
    rng = np.random.default_rng(seed)
    n = int(round(sr * seconds))
    clips = np.empty((num_clips, n), dtype=np.float32)
    labels = rng.integers(0, num_species, size=num_clips)
    for i in range(num_clips):
        f_lo, f_hi, call_s, gap_s, kind = SPECIES[labels[i]]
        sig = np.zeros(n)
        pos = int(rng.integers(0, int(sr * gap_s) + 1))
        while pos < n:
            m = int(sr * call_s * rng.uniform(0.8, 1.2))
            c = _call(kind, f_lo, f_hi, m, sr, rng)[: n - pos]
            sig[pos:pos + len(c)] += c
            pos += m + int(sr * gap_s * rng.uniform(0.7, 1.3))
        white = rng.normal(0, 1, n)
        noise = np.cumsum(white) * 0.02 + white  # some low-frequency rumble
        snr = rng.uniform(snr_lo, snr_hi)
        scale = np.sqrt(np.mean(sig ** 2) / (np.mean(noise ** 2) * 10 ** (snr / 10) + 1e-12))
        x = sig + scale * noise
        clips[i] = (0.5 * x / (np.abs(x).max() + 1e-9)).astype(np.float32)
    return clips, labels.astype(np.int64)
