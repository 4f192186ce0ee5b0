"""Synthetic wrist PPG recordings: pulse trains with baseline wander, motion bursts and noise."""
import numpy as np

RHYTHMS = ("sinus", "bradycardia", "tachycardia", "irregular")

_MEAN_IBI_S = {0: (0.70, 1.00), 1: (1.10, 1.50), 2: (0.45, 0.58), 3: (0.55, 0.95)}


def _beat_times(rng, rhythm, duration):
    lo, hi = _MEAN_IBI_S[rhythm]
    mean_ibi = rng.uniform(lo, hi)
    jitter = 0.25 if rhythm == 3 else 0.03
    times, t = [], rng.uniform(0.0, mean_ibi)
    while t < duration:
        times.append(t)
        t += max(0.3, mean_ibi * (1.0 + jitter * rng.standard_normal()))
    return np.asarray(times)


def _pulse(t, width):
    """Systolic upstroke/peak plus a smaller dicrotic wave, for times relative to the beat onset."""
    systolic = np.exp(-0.5 * ((t - 0.15) / (0.06 * width)) ** 2)
    dicrotic = 0.35 * np.exp(-0.5 * ((t - 0.42) / (0.09 * width)) ** 2)
    return systolic + dicrotic


def synth_recording(seed, subject, fs, duration):
    rng = np.random.default_rng([seed, subject])
    rhythm = int(rng.integers(len(RHYTHMS)))
    n = int(duration * fs)
    t = np.arange(n) / fs
    beats = _beat_times(rng, rhythm, duration)
    width = rng.uniform(0.8, 1.3)
    amps = rng.uniform(0.7, 1.2) * (1.0 + 0.1 * rng.standard_normal(len(beats)))
    signal = np.zeros(n)
    template = _pulse(np.arange(int(0.8 * fs)) / fs, width)
    for i0, amp in zip((beats * fs).astype(np.int64).tolist(), amps.tolist()):
        i1 = min(n, i0 + len(template))
        signal[i0:i1] += amp * template[: i1 - i0]
    resp = rng.uniform(0.1, 0.4) * np.sin(2 * np.pi * rng.uniform(0.15, 0.35) * t + rng.uniform(0, 2 * np.pi))
    drift = np.cumsum(rng.normal(0.0, 0.01, n))
    motion = np.zeros(n)
    for _ in range(int(rng.integers(0, 4))):
        c, w = rng.uniform(0, duration), rng.uniform(0.5, 2.0)
        motion += rng.uniform(0.3, 1.0) * np.exp(-0.5 * ((t - c) / w) ** 2) * np.sin(2 * np.pi * 2.5 * t)
    ppg = signal + resp + drift + motion + rng.normal(0.0, 0.03, n)
    return ppg, rhythm
