"""Per-breath amplitude / timing features."""
from collections import namedtuple

import numpy as np

from .dsp import detect_breaths, detrend, moving_average

Breath = namedtuple("Breath", "start end amplitude duration insp_fraction area")


def segment_breaths(sig, fs, cfg):
    x = detrend(sig, fs, cfg["detrend_seconds"])
    # light low-pass so belt noise does not chatter around the thresholds
    x = moving_average(x, int(round(cfg["smooth_seconds"] * fs)) | 1)
    thresh = cfg["hysteresis"] * float(np.std(x))
    onsets = detect_breaths(x, thresh, int(cfg["min_breath_seconds"] * fs))
    breaths = []
    for a, b in zip(onsets[:-1], onsets[1:]):
        seg = x[a:b]
        peak = int(np.argmax(seg))
        breaths.append(Breath(a, b, float(seg.max() - seg.min()), (b - a) / fs, peak / (b - a),
                              float(np.abs(seg).mean())))
    return x, breaths


def breath_table(breaths, max_breaths):
    table = np.zeros((max_breaths, 4), dtype=np.float32)
    for k, br in enumerate(breaths[:max_breaths]):
        table[k] = (br.amplitude, br.duration / 5.0, br.insp_fraction, br.area)
    return table, min(len(breaths), max_breaths)


def summary(breaths, x, window_s):
    if len(breaths) < 2:
        return np.array([len(breaths) / window_s * 60 / 20, 0.0, 0.0, float(np.std(x)), 1.0], dtype=np.float32)
    d = np.array([b.duration for b in breaths])
    a = np.array([b.amplitude for b in breaths])
    gaps = (np.diff([b.start for b in breaths]) > 2.5 * np.median(d)).mean()
    return np.array([len(breaths) / window_s * 60 / 20, d.std() / d.mean(), a.std() / a.mean(),
                     float(np.std(x)), gaps], dtype=np.float32)
