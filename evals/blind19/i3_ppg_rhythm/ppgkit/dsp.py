"""PPG preprocessing: detrending, adaptive-threshold systolic peak detection, inter-beat intervals."""
import numpy as np


def detrend(x, fs, window_s=0.75):
    """Subtract a centred moving average (edge-padded) and scale to unit variance."""
    w = int(window_s * fs) | 1
    csum = np.cumsum(np.pad(x, (w // 2 + 1, w // 2), mode="edge"))
    trend = (csum[w:] - csum[:-w]) / w
    y = x - trend
    return (y - y.mean()) / (y.std() + 1e-8)


def adaptive_threshold(x, fs, window_s=1.5, alpha=0.6, min_height=0.0):
    """Per-sample threshold: a fraction of the local maximum in a centred window."""
    n = len(x)
    half = int(window_s * fs) // 2
    thr = np.empty(n)
    for i in range(n):
        lo = max(0, i - half)
        hi = min(n, i + half + 1)
        thr[i] = alpha * x[lo:hi].max()
    return np.maximum(thr, min_height)


def detect_systolic_peaks(x, thr, fs, refractory_s=0.3):
    """Local maxima above the threshold; within the refractory period keep the taller one."""
    refractory = int(refractory_s * fs)
    peaks = []
    last = -refractory - 1
    i = 1
    while i < len(x) - 1:
        if x[i] > thr[i] and x[i] >= x[i - 1] and x[i] > x[i + 1]:
            if i - last > refractory:
                peaks.append(i)
                last = i
            elif x[i] > x[last]:
                peaks[-1] = i
                last = i
        i += 1
    return np.asarray(peaks, dtype=np.int64)


def ibi_features(peaks, fs, n_samples):
    """Mean IBI, SDNN, RMSSD (ms), pNN50, heart rate (bpm), beats per second of signal."""
    if len(peaks) < 3:
        return np.zeros(6)
    ibi = np.diff(peaks) / fs * 1000.0
    succ = np.diff(ibi)
    mean_ibi = ibi.mean()
    return np.array([
        mean_ibi,
        ibi.std(),
        np.sqrt(np.mean(succ ** 2)),
        np.mean(np.abs(succ) > 50.0),
        60000.0 / mean_ibi,
        len(peaks) / (n_samples / fs),
    ])
