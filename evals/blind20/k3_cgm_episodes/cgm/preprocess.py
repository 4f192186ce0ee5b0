"""CGM cleaning and event features, reading by reading."""
import math

import numpy as np


def fill_short_gaps(glucose, max_gap):
    """Linearly interpolate runs of at most ``max_gap`` missing readings between two valid ones."""
    out = glucose.copy()
    n = len(out)
    i = 0
    while i < n:
        if not math.isnan(out[i]):
            i += 1
            continue
        j = i
        while j < n and math.isnan(out[j]):
            j += 1
        gap = j - i
        if i > 0 and j < n and gap <= max_gap:
            left, right = out[i - 1], out[j]
            for k in range(1, gap + 1):
                out[i + k - 1] = left + (right - left) * k / (gap + 1)
        i = j
    return out


def rate_of_change(glucose, interval_min):
    """mg/dL per minute between consecutive readings; 0 where either reading is missing."""
    roc = np.zeros(len(glucose))
    for i in range(1, len(glucose)):
        prev, cur = glucose[i - 1], glucose[i]
        if math.isnan(prev) or math.isnan(cur):
            continue
        roc[i] = (cur - prev) / interval_min
    return roc


def find_episodes(glucose, in_range, min_readings):
    """(start, end) index pairs of runs where in_range(value) holds for at least min_readings."""
    episodes = []
    start = None
    for i, value in enumerate(glucose):
        if not math.isnan(value) and in_range(value):
            if start is None:
                start = i
            continue
        if start is not None and i - start >= min_readings:
            episodes.append((start, i))
        start = None
    if start is not None and len(glucose) - start >= min_readings:
        episodes.append((start, len(glucose)))
    return episodes


def episode_mask(n, episodes):
    mask = np.zeros(n)
    for start, end in episodes:
        mask[start:end] = 1.0
    return mask


class CGMPreprocessor:
    def __init__(self, interval_min, max_gap_min, hypo_mgdl, hyper_mgdl, min_episode_min):
        self.interval_min = interval_min
        self.max_gap = int(max_gap_min // interval_min)
        self.hypo = hypo_mgdl
        self.hyper = hyper_mgdl
        self.min_readings = int(math.ceil(min_episode_min / interval_min))

    def __call__(self, raw):
        glucose = fill_short_gaps(raw, self.max_gap)
        roc = rate_of_change(glucose, self.interval_min)
        hypo = find_episodes(glucose, lambda v: v < self.hypo, self.min_readings)
        hyper = find_episodes(glucose, lambda v: v > self.hyper, self.min_readings)
        return {
            "glucose": glucose,
            "roc": roc,
            "hypo_mask": episode_mask(len(glucose), hypo),
            "hyper_mask": episode_mask(len(glucose), hyper),
            "n_hypo": len(hypo),
            "n_hyper": len(hyper),
        }
