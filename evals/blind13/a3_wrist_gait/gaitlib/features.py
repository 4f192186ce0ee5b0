"""Stride features of one window from its detected steps."""
import math

FEATURE_NAMES = ("steps", "cadence_spm", "step_s_mean", "step_s_cv", "asymmetry", "peak_g", "rms_g")


def stride_features(signal, timestamps, peaks):
    duration_s = (timestamps[-1] - timestamps[0]) / 1000.0
    n = len(signal)
    rms = math.sqrt(sum(v * v for v in signal) / n)
    if len(peaks) < 3:
        return [float(len(peaks)), 60.0 * len(peaks) / duration_s, 0.0, 0.0, 0.0,
                max(signal[p] for p in peaks) if peaks else 0.0, rms]
    intervals = [(timestamps[b] - timestamps[a]) / 1000.0 for a, b in zip(peaks, peaks[1:])]
    mean_iv = sum(intervals) / len(intervals)
    sd = math.sqrt(sum((iv - mean_iv) ** 2 for iv in intervals) / len(intervals))
    odd, even = intervals[0::2], intervals[1::2]
    asym = abs(sum(odd) / len(odd) - sum(even) / len(even)) / mean_iv
    peak_g = sum(signal[p] for p in peaks) / len(peaks)
    return [float(len(peaks)), 60.0 * len(peaks) / duration_s, mean_iv, sd / mean_iv, asym, peak_g, rms]
