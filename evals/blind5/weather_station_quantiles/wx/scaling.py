"""Robust per-window scaling: each channel is centred on the median of the lookback period (60 days) and
divided by its 5-95 percentile spread; gaps inside the window are forward-filled."""


def _quantile(sorted_vals, q):
    """Linear interpolation between closest ranks (numpy's default 'linear' method)."""
    pos = (len(sorted_vals) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(sorted_vals) - 1)
    frac = pos - lo
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * frac


def robust_stats(history):
    vals = sorted(v for v in history if v == v)  # v == v drops NaN
    if not vals:
        return 0.0, 0.0, 1.0
    return tuple(_quantile(vals, q) for q in (0.05, 0.5, 0.95))


def forward_fill(values, fallback):
    out = []
    last = fallback
    i = 0
    while i < len(values):
        v = values[i]
        if v != v:
            v = last
        else:
            last = v
        out.append(v)
        i += 1
    return out


def scale_window(window_rows, history_rows):
    """window_rows / history_rows: one list of floats per channel."""
    scaled = []
    for hist, win in zip(history_rows, window_rows):
        q05, q50, q95 = robust_stats(hist)
        spread = (q95 - q05) or 1.0
        filled = forward_fill(win, q50)
        scaled.append([(v - q50) / spread for v in filled])
    return scaled
