"""Per-window signal processing: magnitude, moving-average smoother, step detection."""
import math


def magnitude(xs, ys, zs, scale):
    """Euclidean norm of the three axes in g; `scale` is counts -> g (incl. any gain augmentation)."""
    out = []
    for x, y, z in zip(xs, ys, zs):
        gx, gy, gz = x * scale, y * scale, z * scale
        out.append(math.sqrt(gx * gx + gy * gy + gz * gz))
    return out


def moving_average(values, taps):
    """Centred moving average; the window shrinks at both ends (no padding)."""
    half = taps // 2
    n = len(values)
    out = []
    for i in range(n):
        lo, hi = max(0, i - half), min(n, i + half + 1)
        acc = 0.0
        for v in values[lo:hi]:
            acc += v
        out.append(acc / (hi - lo))
    return out


def detect_steps(signal, timestamps, refractory_ms):
    """Peak picking: local maxima above mean + 0.5 std; within the refractory period of the last
    accepted peak, a higher peak replaces it. Returns the indices of the accepted peaks."""
    n = len(signal)
    mean = sum(signal) / n
    var = sum((v - mean) * (v - mean) for v in signal) / n
    threshold = mean + 0.5 * math.sqrt(var)
    peaks = []
    i = 1
    while i < n - 1:
        v = signal[i]
        if v > threshold and v > signal[i - 1] and v >= signal[i + 1]:
            if peaks and timestamps[i] - timestamps[peaks[-1]] < refractory_ms:
                if v > signal[peaks[-1]]:
                    peaks[-1] = i
            else:
                peaks.append(i)
        i += 1
    return peaks
