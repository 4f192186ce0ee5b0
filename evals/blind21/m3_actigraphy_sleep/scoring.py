"""Epoch counts and Cole-Kripke style sleep/wake scoring."""
import math


def activity_counts(raw, lsb_per_g, samples_per_epoch, dead_band, gain):
    """Proportional-integration counts: sum over the epoch of | |a| - 1 g | above a dead band.

    `raw` is the (n, 3) int16 dump; a trailing partial epoch is dropped.
    """
    counts = []
    total = 0.0
    n_in_epoch = 0
    for x, y, z in raw.tolist():
        x, y, z = x / lsb_per_g, y / lsb_per_g, z / lsb_per_g
        enmo = abs(math.sqrt(x * x + y * y + z * z) - 1.0)
        if enmo > dead_band:
            total += enmo - dead_band
        n_in_epoch += 1
        if n_in_epoch == samples_per_epoch:
            counts.append(total * gain)
            total = 0.0
            n_in_epoch = 0
    return counts


def cole_kripke(counts, weights, offsets, scale):
    """D_t = scale * sum_k W_k * A_{t+k}; epochs outside the window count as zero activity."""
    n = len(counts)
    index = []
    for t in range(n):
        d = 0.0
        for w, k in zip(weights, offsets):
            j = t + k
            if 0 <= j < n:
                d += w * counts[j]
        index.append(scale * d)
    return index


def rescore(sleep, min_wake=2):
    """Webster-style rescoring: wake runs shorter than `min_wake` epochs between sleep are sleep."""
    out = list(sleep)
    t = 0
    while t < len(out):
        if not out[t]:
            start = t
            while t < len(out) and not out[t]:
                t += 1
            if start > 0 and t < len(out) and t - start < min_wake:
                for j in range(start, t):
                    out[j] = True
        else:
            t += 1
    return out
