"""The noise floor: how much one run of an unchanged pipeline varies."""
from __future__ import annotations

import statistics

# From this many runs on, the median absolute deviation estimates the spread; below it, it
# collapses whenever two runs happen to agree, so the sample standard deviation is used.
ROBUST_FROM = 5


def noise_pct(values: list[float]) -> float:
    """Return about two standard deviations of one run, in percent of the median.

    Fewer than ROBUST_FROM runs: the sample standard deviation, which counts a single odd
    run as spread (with three runs one cannot tell a disturbed run from a noisy machine).
    From ROBUST_FROM runs: the larger of the median absolute deviation scaled by 1.4826
    and the standard deviation of the runs but the one farthest from the median; both
    ignore a single disturbed run.
    """
    if len(values) < 2:
        return 0.0
    middle = statistics.median(values)
    if not middle:
        return 0.0
    if len(values) < ROBUST_FROM:
        sigma = statistics.stdev(values)
    else:
        # The larger of the scaled MAD and the standard deviation without the one run farthest
        # from the median: neither collapses when a few runs happen to agree, and a single
        # disturbed run sets neither.
        farthest = max(range(len(values)), key=lambda i: abs(values[i] - middle))
        rest = [v for i, v in enumerate(values) if i != farthest]
        sigma = max(1.4826 * statistics.median(abs(v - middle) for v in values), statistics.stdev(rest))
    return 2 * sigma / middle * 100.0
