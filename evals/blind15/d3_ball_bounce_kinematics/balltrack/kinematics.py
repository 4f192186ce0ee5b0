"""Per-track kinematics: gap filling, Gaussian smoothing, derivatives, curvature, bounces."""
import math


def parse_track(text, min_conf):
    """Tracker CSV -> {frame: (x, y)} keeping the most confident detection per frame."""
    best = {}
    for line in text.splitlines()[1:]:
        if not line:
            continue
        f, x, y, c = line.split(",")
        c = float(c)
        if c < min_conf:
            continue
        f = int(f)
        if f not in best or c > best[f][2]:
            best[f] = (float(x), float(y), c)
    return {f: (v[0], v[1]) for f, v in best.items()}


def fill_gaps(points, start, length):
    """Positions for frames start..start+length-1; gaps linearly interpolated, ends held."""
    frames = sorted(f for f in points if start <= f < start + length)
    xs, ys = [], []
    if not frames:
        return [0.0] * length, [0.0] * length
    k = 0
    for f in range(start, start + length):
        while k < len(frames) and frames[k] < f:
            k += 1
        if k < len(frames) and frames[k] == f:
            x, y = points[f]
        elif k == 0:
            x, y = points[frames[0]]
        elif k == len(frames):
            x, y = points[frames[-1]]
        else:
            f0, f1 = frames[k - 1], frames[k]
            a = (f - f0) / (f1 - f0)
            (x0, y0), (x1, y1) = points[f0], points[f1]
            x, y = x0 + a * (x1 - x0), y0 + a * (y1 - y0)
        xs.append(x)
        ys.append(y)
    return xs, ys


def gaussian_smooth(values, taps):
    """Truncated Gaussian smoothing, weights renormalised where the window leaves the track."""
    radius = len(taps) // 2
    n = len(values)
    out = []
    for t in range(n):
        lo, hi = max(0, t - radius), min(n, t + radius + 1)
        w = taps[lo - t + radius: hi - t + radius]
        out.append(sum(wi * v for wi, v in zip(w, values[lo:hi])) / sum(w))
    return out


def derivative(values, dt):
    n = len(values)
    d = []
    for t in range(n):
        if t == 0:
            d.append((values[1] - values[0]) / dt)
        elif t == n - 1:
            d.append((values[-1] - values[-2]) / dt)
        else:
            d.append((values[t + 1] - values[t - 1]) / (2.0 * dt))
    return d


def curvature(vx, vy, ax, ay, eps=1e-6):
    out = []
    for a, b, c, d in zip(vx, vy, ax, ay):
        s2 = a * a + b * b
        out.append((a * d - b * c) / (s2 * math.sqrt(s2) + eps))
    return out


def bounces(ys, vys, ground_y, tol=60.0, min_fall=200.0, lookback=6):
    """A bounce: vertical velocity flips from falling (+, image y grows downward) to rising near the
    ground, after a real fall (a rolling or resting ball jitters around zero)."""
    flags = [0.0] * len(ys)
    for t in range(1, len(ys)):
        if vys[t - 1] > 0.0 >= vys[t] and ys[t] > ground_y - tol:
            if max(vys[max(0, t - lookback):t]) > min_fall:
                flags[t] = 1.0
    return flags
