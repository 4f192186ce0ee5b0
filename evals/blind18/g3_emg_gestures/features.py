"""Time-domain sEMG features (Hudgins set plus an RMS envelope), channel by channel."""
import math


def remove_offset(x):
    mean = sum(x) / len(x)
    return [v - mean for v in x]


def rectify(x):
    """Full-wave rectification."""
    return [abs(v) for v in x]


def rms_envelope(x, width):
    """Sliding RMS over `width` samples, hop 1 (len(x) - width + 1 values)."""
    out = []
    for start in range(len(x) - width + 1):
        acc = sum(v * v for v in x[start:start + width])
        out.append(math.sqrt(acc / width))
    return out


def zero_crossings(x, threshold):
    count = 0
    for a, b in zip(x, x[1:]):
        if a * b < 0 and abs(a - b) >= threshold:
            count += 1
    return count


def slope_sign_changes(x, threshold):
    count = 0
    for i in range(1, len(x) - 1):
        if (x[i] - x[i - 1]) * (x[i] - x[i + 1]) >= threshold:
            count += 1
    return count


def waveform_length(x):
    return sum(abs(b - a) for a, b in zip(x, x[1:]))


class HudginsFeatures:
    """Per channel: envelope resampled to `points` values, and per sub-window MAV, ZC, SSC, WL."""

    def __init__(self, rms_window, points, sub_windows, zc_threshold, ssc_threshold):
        self.rms_window = rms_window
        self.points = points
        self.sub_windows = sub_windows
        self.zc_threshold = zc_threshold
        self.ssc_threshold = ssc_threshold

    def __call__(self, window_mv):
        """window_mv: list of channels, each a list of floats (mV). Returns (envelopes, scalars)."""
        envelopes, scalars = [], []
        for channel in window_mv:
            x = remove_offset(channel)
            env = rms_envelope(x, self.rms_window)
            stride = (len(env) - 1) / (self.points - 1)
            envelopes.append([env[int(round(k * stride))] for k in range(self.points)])
            rect = rectify(x)
            seg = len(x) // self.sub_windows
            row = []
            for s in range(self.sub_windows):
                part, part_rect = x[s * seg:(s + 1) * seg], rect[s * seg:(s + 1) * seg]
                row.append(sum(part_rect) / seg)
                row.append(zero_crossings(part, self.zc_threshold) / seg)
                row.append(slope_sign_changes(part, self.ssc_threshold) / seg)
                row.append(waveform_length(part))
            scalars.append(row)
        return envelopes, scalars
