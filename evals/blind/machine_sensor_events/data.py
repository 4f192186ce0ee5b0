"""Sliding windows over a long multichannel machine-sensor recording.

Every window is robust-scaled on its own (median / MAD), which keeps spikes from
dominating the statistics the way mean / std would.
"""
import numpy as np
import torch


def simulate_recording(channels, length, event_rate, seed):
    rng = np.random.RandomState(seed)
    t = np.arange(length)
    base = np.stack([np.sin(2 * np.pi * t / (200 + 37 * c)) for c in range(channels)])
    drift = np.cumsum(rng.normal(0, 0.02, size=(channels, length)), axis=1)
    x = base + drift + rng.normal(0, 0.3, size=(channels, length))
    labels = np.zeros(length, dtype=np.int64)
    n_events = int(length * event_rate)
    for start in rng.randint(0, length - 64, size=n_events):
        kind = rng.randint(1, 4)
        span = slice(start, start + 48)
        if kind == 1:      # spike burst
            x[:, span] += rng.normal(0, 3.0, size=(channels, 48))
        elif kind == 2:    # stuck sensor
            x[0, span] = x[0, start]
        else:              # oscillation
            x[1, span] += 2.0 * np.sin(np.arange(48) * 1.3)
        labels[span] = kind
    return x, labels


def median_of_sorted(vals):
    n = len(vals)
    mid = n // 2
    if n % 2:
        return vals[mid]
    return (vals[mid - 1] + vals[mid]) / 2


def robust_scale(values, clip):
    ordered = sorted(values)
    med = median_of_sorted(ordered)
    deviations = sorted(abs(v - med) for v in values)
    mad = median_of_sorted(deviations)
    denom = 1.4826 * mad + 1e-8
    out = []
    for v in values:
        z = (v - med) / denom
        out.append(max(-clip, min(clip, z)))
    return out


class SensorWindows(torch.utils.data.Dataset):
    def __init__(self, signal, labels, size, stride, clip):
        self.signal = signal
        self.labels = labels
        self.size = size
        self.clip = clip
        self.starts = []
        s = 0
        while s + size <= signal.shape[1]:
            self.starts.append(s)
            s += stride

    def __len__(self):
        return len(self.starts)

    def window_label(self, start):
        # the event kind covering the last quarter of the window, else 0
        tail = self.labels[start + 3 * self.size // 4: start + self.size]
        counts = {}
        for k in tail:
            counts[int(k)] = counts.get(int(k), 0) + 1
        best = max(counts.items(), key=lambda kv: (kv[1], -kv[0]))
        return best[0]

    def __getitem__(self, i):
        start = self.starts[i]
        channels = []
        for c in range(self.signal.shape[0]):
            raw = [float(self.signal[c, t]) for t in range(start, start + self.size)]
            channels.append(robust_scale(raw, self.clip))
        x = torch.tensor(channels, dtype=torch.float32)
        return x, self.window_label(start)
