"""Hand-rolled window features, kept dependency-free so they match the SCADA-side scripts."""
import math


def rolling_mean(xs, w, start):
    """Trailing mean over w points for every index from `start` on."""
    out = []
    for t in range(start, len(xs)):
        seg = xs[t - w + 1:t + 1]
        out.append(sum(seg) / w)
    return out


def rolling_std(xs, w, start, means):
    out = []
    for i, t in enumerate(range(start, len(xs))):
        m = means[i]
        seg = xs[t - w + 1:t + 1]
        out.append(math.sqrt(sum((v - m) * (v - m) for v in seg) / w))
    return out


def lag_diff(xs, lag, start):
    return [xs[t] - xs[t - lag] for t in range(start, len(xs))]


def degree_hours(temps, base, start):
    acc = 0.0
    running = []
    t = start
    while t < len(temps):
        acc = acc + max(0.0, base - temps[t])
        running.append(acc / 24.0)
        t += 1
    return running


def row_stats(row):
    n = len(row)
    m = sum(row) / n
    var = sum((v - m) * (v - m) for v in row) / n
    return m, math.sqrt(var)


def zscore_rows(rows, eps=1e-6):
    out, stats = [], []
    for row in rows:
        m, s = row_stats(row)
        out.append([(v - m) / (s + eps) for v in row])
        stats.append((m, s))
    return out, stats
