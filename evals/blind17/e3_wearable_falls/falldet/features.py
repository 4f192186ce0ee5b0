"""Per-window features: magnitude, jerk and impact peaks."""
import heapq
import math


def magnitude(x, y, z):
    return [math.sqrt(a * a + b * b + c * c) for a, b, c in zip(x, y, z)]


def jerk(mag, fs):
    return [(b - a) * fs for a, b in zip(mag, mag[1:])]


def find_peaks(sig, height, distance):
    """Local maxima above `height`, thinned so kept peaks are at least `distance` apart (tallest first)."""
    cands = [i for i in range(1, len(sig) - 1) if sig[i] > height and sig[i] > sig[i - 1] and sig[i] >= sig[i + 1]]
    heap = [(-sig[i], i) for i in cands]
    heapq.heapify(heap)
    kept = []
    while heap:
        _, i = heapq.heappop(heap)
        if all(abs(i - k) >= distance for k in kept):
            kept.append(i)
    return sorted(kept)


def window_features(x, y, z, fs, peak_height, peak_distance):
    mag = magnitude(x, y, z)
    jk = jerk(mag, fs)
    n = len(mag)
    mean = sum(mag) / n
    std = math.sqrt(sum((m - mean) ** 2 for m in mag) / n)
    peaks = find_peaks(mag, peak_height, peak_distance)
    if peaks:
        top = max(peaks, key=lambda i: mag[i])
        after = mag[top + int(fs // 2):]
        still = math.sqrt(sum((m - 1.0) ** 2 for m in after) / len(after)) if after else 1.0
    else:
        top, still = 0, 1.0
    second = int(fs)
    g0 = [sum(v[:second]) / second for v in (x, y, z)]
    g1 = [sum(v[-second:]) / second for v in (x, y, z)]
    dot = sum(a * b for a, b in zip(g0, g1))
    norm = math.sqrt(sum(a * a for a in g0)) * math.sqrt(sum(b * b for b in g1))
    tilt = math.acos(max(-1.0, min(1.0, dot / norm))) if norm > 0 else 0.0
    feats = [max(mag), min(mag), mean, std, float(len(peaks)), max(abs(j) for j in jk), still, tilt,
             top / n]
    return mag, feats
