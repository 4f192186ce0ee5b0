"""Detrending and breath segmentation for belt signals."""
import numpy as np


def moving_average(x, win):
    """Centred moving average (reflect-padded at the edges)."""
    half = win // 2
    padded = np.pad(x, half, mode="reflect")
    return np.array([padded[i:i + win].mean() for i in range(len(x))])


def detrend(x, fs, seconds):
    win = int(round(seconds * fs)) | 1
    return x - moving_average(x, win)


def detect_breaths(x, thresh, min_len):
    """Breath onsets = upward crossings of +thresh after the signal has been below -thresh
    (zero crossings with hysteresis). Returns the onset indices."""
    onsets = []
    state = 0
    last = -min_len
    for i in range(len(x)):
        v = x[i]
        if state <= 0 and v > thresh:
            if i - last >= min_len:
                onsets.append(i)
                last = i
            state = 1
        elif state >= 0 and v < -thresh:
            state = -1
    return onsets
