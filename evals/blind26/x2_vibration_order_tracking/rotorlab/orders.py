"""Computed order tracking: resample a run-up from uniform time to uniform shaft angle."""
import numpy as np


def tach_edges(tach, threshold):
    """Rising threshold crossings of the tachometer, in fractional sample indices."""
    sig = tach.tolist()
    edges = []
    prev = sig[0]
    for i in range(1, len(sig)):
        cur = sig[i]
        if prev < threshold <= cur:
            edges.append((i - 1) + (threshold - prev) / (cur - prev))
        prev = cur
    return edges


def angular_resample(x, edges, revolutions, samples_per_rev):
    """Linear interpolation of `x` at `samples_per_rev` equal angle steps per revolution,
    assuming constant speed between consecutive tach pulses."""
    if len(edges) < revolutions + 1:
        raise ValueError(f"only {len(edges) - 1} revolutions in the window")
    sig = x.tolist()
    out = []
    for p in range(revolutions):
        t_a, t_b = edges[p], edges[p + 1]
        span = t_b - t_a
        for s in range(samples_per_rev):
            t = t_a + (s / samples_per_rev) * span
            i = int(t)
            frac = t - i
            out.append(sig[i] + frac * (sig[i + 1] - sig[i]))
    return np.asarray(out, dtype=np.float64)


def order_spectrum(x, tach, threshold, revolutions, samples_per_rev, max_bins):
    edges = tach_edges(tach, threshold)
    xa = angular_resample(x, edges, revolutions, samples_per_rev)
    xa = (xa - xa.mean()) * np.hanning(len(xa))
    spec = np.abs(np.fft.rfft(xa))[:max_bins] / len(xa)
    return np.log1p(100.0 * spec).astype(np.float32)
