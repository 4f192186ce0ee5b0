"""Ring-width measurement from a scanned core strip (the classic CooRecorder-style path).

1. column profile: pixel intensities summed down the strip,
2. detrend: divide by a centred moving average (edge-clamped window),
3. ring boundaries: local minima of the detrended profile that fall under a threshold,
   at least `min_ring_px` apart,
4. ring widths: distances between consecutive boundaries.
"""


def column_profile(img):
    rows = img.tolist()
    width = len(rows[0])
    col = [0] * width
    for row in rows:
        for c in range(width):
            col[c] += row[c]
    return col


def detrend(col, half_window):
    width = len(col)
    out = []
    for c in range(width):
        lo = max(0, c - half_window)
        hi = min(width, c + half_window + 1)
        s = 0
        for j in range(lo, hi):
            s += col[j]
        out.append(col[c] / (s / (hi - lo)))
    return out


def ring_boundaries(det, threshold, min_gap):
    bounds = []
    last = -min_gap
    for c in range(1, len(det) - 1):
        if det[c] < det[c - 1] and det[c] <= det[c + 1] and det[c] < threshold:
            if c - last >= min_gap:
                bounds.append(c)
                last = c
    return bounds


def max_pool(values, k):
    return [max(values[i:i + k]) for i in range(0, len(values) - k + 1, k)]


def measure_core(img, half_window=90, threshold=0.92, min_gap=3, max_rings=48, pool=4):
    """Return (pooled detrended profile, ring widths padded to max_rings, ring count)."""
    col = column_profile(img)
    det = detrend(col, half_window)
    bounds = ring_boundaries(det, threshold, min_gap)
    widths = [b - a for a, b in zip(bounds[:-1], bounds[1:])][:max_rings]
    n = len(widths)
    widths = widths + [0] * (max_rings - n)
    return max_pool(det, pool), widths, n
