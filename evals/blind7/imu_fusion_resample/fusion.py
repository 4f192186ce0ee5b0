"""Align asynchronous sensor streams on a common uniform time grid (linear interpolation)."""


def select_window(stream, t_start, t_end, margin):
    """Records whose timestamp falls in [t_start - margin, t_end + margin]."""
    return [r for r in stream if t_start - margin <= r["t"] <= t_end + margin]


def resample(samples, keys, grid):
    """Linearly interpolate the given fields of time-sorted records at the grid times."""
    ts = [r["t"] for r in samples]
    vals = [[r[k] for k in keys] for r in samples]
    n = len(ts)
    out = []
    j = 0
    for t in grid:
        while j + 1 < n and ts[j + 1] <= t:
            j += 1
        if t <= ts[0]:
            out.append(list(vals[0]))
        elif t >= ts[-1]:
            out.append(list(vals[-1]))
        else:
            t0, t1 = ts[j], ts[j + 1]
            a = (t - t0) / (t1 - t0)
            out.append([v0 + a * (v1 - v0) for v0, v1 in zip(vals[j], vals[j + 1])])
    return out


class StreamAligner:
    """acc xyz + gyro xyz + barometric pressure change, resampled to `rate` Hz."""

    def __init__(self, length, rate, margin):
        self.length = length
        self.rate = rate
        self.margin = margin

    def __call__(self, recording, t_start):
        grid = [t_start + k / self.rate for k in range(self.length)]
        t_end = grid[-1]
        acc = resample(select_window(recording["acc"], t_start, t_end, self.margin), ("x", "y", "z"), grid)
        gyr = resample(select_window(recording["gyro"], t_start, t_end, self.margin), ("x", "y", "z"), grid)
        bar = resample(select_window(recording["baro"], t_start, t_end, self.margin), ("p",), grid)
        p_ref = bar[0][0]
        rows = [a + g + [b[0] - p_ref] for a, g, b in zip(acc, gyr, bar)]
        return rows  # length x 7
