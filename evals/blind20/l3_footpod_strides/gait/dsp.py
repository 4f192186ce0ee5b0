"""Step detection and stride-time variability for foot-pod acceleration windows."""
import math

import numpy as np


def magnitude(ax, ay, az):
    return [math.sqrt(x * x + y * y + z * z) for x, y, z in zip(ax, ay, az)]


def moving_average(x, width):
    """Centred moving average; the window shrinks at the edges (no padding bias)."""
    half = width // 2
    n = len(x)
    out = []
    for i in range(n):
        lo = max(0, i - half)
        hi = min(n, i + half + 1)
        window = x[lo:hi]
        out.append(sum(window) / len(window))
    return out


def detect_steps(signal, level, margin, min_gap):
    """Local maxima above level * (1 + margin); peaks closer than min_gap keep the larger one."""
    peaks = []
    for i in range(1, len(signal) - 1):
        s = signal[i]
        if s > level[i] * (1.0 + margin) and s > signal[i - 1] and s >= signal[i + 1]:
            if peaks and i - peaks[-1] < min_gap:
                if s > signal[peaks[-1]]:
                    peaks[-1] = i
            else:
                peaks.append(i)
    return peaks


def stride_stats(steps, fs):
    """Mean stride time (same foot: every second step) and its coefficient of variation."""
    strides = [(steps[j + 2] - steps[j]) / fs for j in range(len(steps) - 2)]
    if len(strides) < 2:
        return 0.0, 0.0
    mean = sum(strides) / len(strides)
    var = sum((s - mean) ** 2 for s in strides) / len(strides)
    return mean, math.sqrt(var) / mean


class GaitFeatureExtractor:
    def __init__(self, fs, smooth_width, level_width, level_margin, min_step_gap_s,
                 variability_window_s, downsample):
        self.fs = fs
        self.smooth_width = smooth_width
        self.level_width = level_width
        self.level_margin = level_margin
        self.min_gap = int(round(min_step_gap_s * fs))
        self.sub_len = int(round(variability_window_s * fs))
        self.downsample = downsample

    def __call__(self, acc):
        ax, ay, az = acc.tolist()
        mag = magnitude(ax, ay, az)
        smooth = moving_average(mag, self.smooth_width)
        level = moving_average(smooth, self.level_width)
        steps = detect_steps(smooth, level, self.level_margin, self.min_gap)

        n = len(smooth)
        cadence = 60.0 * len(steps) / (n / self.fs)
        gait = [cadence / 180.0]
        for start in range(0, n - self.sub_len + 1, self.sub_len):
            sub = [s for s in steps if start <= s < start + self.sub_len]
            mean, cv = stride_stats(sub, self.fs)
            gait.extend([mean, cv])

        ds = self.downsample
        trace = np.asarray(smooth[::ds], dtype=np.float32)
        impulses = np.zeros(len(trace), dtype=np.float32)
        for s in steps:
            impulses[s // ds] = 1.0
        return {
            "trace": np.stack([trace, impulses]),
            "gait": np.asarray(gait, dtype=np.float32),
            "num_steps": len(steps),
        }
