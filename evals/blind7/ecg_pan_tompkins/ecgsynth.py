"""Synthetic single-lead ECG records, stored as integer ADC counts like MIT-BIH (gain 200/mV, zero 1024)."""
import numpy as np

RHYTHMS = ["normal", "brady", "afib", "bigeminy", "tachy"]
ADC_ZERO = 1024
ADC_GAIN = 200.0

# (amplitude mV, offset s, width s) relative to the R wave
NORMAL_BEAT = [(0.15, -0.20, 0.025), (-0.10, -0.025, 0.008), (1.10, 0.0, 0.010),
               (-0.25, 0.025, 0.010), (0.30, 0.25, 0.040)]
NO_P_BEAT = NORMAL_BEAT[1:]
PVC_BEAT = [(1.40, 0.0, 0.030), (-0.45, 0.06, 0.025), (-0.35, 0.30, 0.050)]


def _beat_times(kind, duration, rng):
    t = rng.uniform(0.05, 0.5)
    times, shapes = [], []
    if kind == "normal":
        rr = rng.uniform(0.70, 0.95)
    elif kind == "brady":
        rr = rng.uniform(1.10, 1.35)
    elif kind == "tachy":
        rr = rng.uniform(0.40, 0.55)
    elif kind == "afib":
        rr = rng.uniform(0.55, 0.90)
    else:
        rr = rng.uniform(0.75, 0.95)
    k = 0
    while t < duration - 0.05:
        if kind == "bigeminy" and k % 2 == 1:
            shapes.append(PVC_BEAT)
        elif kind == "afib":
            shapes.append(NO_P_BEAT)
        else:
            shapes.append(NORMAL_BEAT)
        times.append(t)
        if kind == "afib":
            t += rr * rng.uniform(0.7, 1.3)
        elif kind == "bigeminy":
            t += rr * (0.6 if k % 2 == 0 else 1.4)
        else:
            t += rr * rng.uniform(0.97, 1.03)
        k += 1
    return times, shapes


def synth_record(kind, fs, duration, rng):
    n = int(round(fs * duration))
    t = np.arange(n) / fs
    mv = 0.12 * np.sin(2 * np.pi * rng.uniform(0.15, 0.4) * t + rng.uniform(0, 2 * np.pi))
    scale = rng.uniform(0.7, 1.3)
    for tb, shape in zip(*_beat_times(kind, duration, rng)):
        for amp, off, width in shape:
            mv += scale * amp * np.exp(-0.5 * ((t - tb - off) / width) ** 2)
    if kind == "afib":
        mv += 0.05 * np.sin(2 * np.pi * rng.uniform(5, 8) * t + rng.uniform(0, 2 * np.pi))
    mv += rng.normal(0, 0.02, size=n)
    return np.rint(ADC_ZERO + ADC_GAIN * mv).astype(np.int16)


def make_records(n_records, fs, duration, seed):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(RHYTHMS), size=n_records)
    records = np.stack([synth_record(RHYTHMS[k], fs, duration, rng) for k in labels])
    return records, labels
