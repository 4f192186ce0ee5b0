"""Per-sweep Nyquist curve features.

All of it works on plain lists of floats, one sweep at a time:
  * moving-average smoothing of Z' and -Z'' (edge samples repeated),
  * high-frequency intercept R0 (where -Z'' crosses zero),
  * the charge-transfer arc: apex, the valley before the diffusion tail, an algebraic (Kasa)
    circle fit between intercept and valley,
  * the Warburg tail slope (least squares on the last points),
  * the curve re-sampled at equal arc-length steps, for the convolutional branch.
"""
import math


def smooth(x, half):
    n = len(x)
    width = 2 * half + 1
    out = []
    for i in range(n):
        acc = 0.0
        for k in range(-half, half + 1):
            j = i + k
            if j < 0:
                j = 0
            elif j > n - 1:
                j = n - 1
            acc += x[j]
        out.append(acc / width)
    return out


def hf_intercept(re, y):
    """Z' where -Z'' first crosses zero going down in frequency (inductive branch -> capacitive)."""
    if y[0] >= 0.0:
        return re[0], 0
    for i in range(1, len(y)):
        if y[i - 1] < 0.0 <= y[i]:
            return re[i - 1] + (re[i] - re[i - 1]) * (0.0 - y[i - 1]) / (y[i] - y[i - 1]), i
    return re[0], 0


def arc_apex_valley(y, start):
    n = len(y)
    apex = valley = -1
    for i in range(max(start, 1), n - 1):
        if apex < 0:
            if y[i] >= y[i - 1] and y[i] > y[i + 1]:
                apex = i
        elif y[i] <= y[i - 1] and y[i] < y[i + 1]:
            valley = i
            break
    if apex < 0:
        apex = n // 3
    if valley < 0:
        valley = min(apex + (n - apex) // 2, n - 1)
    return apex, valley


def kasa_fit(xs, ys):
    """Algebraic circle fit: minimise sum (x^2 + y^2 + D x + E y + F)^2."""
    sx = sy = sxx = syy = sxy = sxz = syz = sz = 0.0
    for x, y in zip(xs, ys):
        z = x * x + y * y
        sx += x
        sy += y
        sxx += x * x
        syy += y * y
        sxy += x * y
        sxz += x * z
        syz += y * z
        sz += z
    n = float(len(xs))
    # normal equations  [[sxx sxy sx] [sxy syy sy] [sx sy n]] [D E F]^T = -[sxz syz sz]^T
    a = ((sxx, sxy, sx), (sxy, syy, sy), (sx, sy, n))
    b = (-sxz, -syz, -sz)
    det = _det3(a)
    if det == 0.0:
        return 0.0, 0.0, 0.0
    sol = []
    for col in range(3):
        m = [list(row) for row in a]
        for r in range(3):
            m[r][col] = b[r]
        sol.append(_det3(m) / det)
    d, e, f = sol
    xc, yc = -d / 2.0, -e / 2.0
    rad2 = xc * xc + yc * yc - f
    return xc, yc, math.sqrt(rad2) if rad2 > 0.0 else 0.0


def _det3(m):
    return (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))


def tail_slope(xs, ys):
    n = float(len(xs))
    sx = sy = sxx = sxy = 0.0
    for x, y in zip(xs, ys):
        sx += x
        sy += y
        sxx += x * x
        sxy += x * y
    den = n * sxx - sx * sx
    return (n * sxy - sx * sy) / den if den != 0.0 else 0.0


def arc_length_resample(channels, xs, ys, n_out):
    """Re-sample every list in `channels` at n_out equal steps of arc length along (xs, ys)."""
    n = len(xs)
    s = [0.0]
    for i in range(1, n):
        dx = xs[i] - xs[i - 1]
        dy = ys[i] - ys[i - 1]
        s.append(s[-1] + math.sqrt(dx * dx + dy * dy))
    total = s[-1]
    outs = [[] for _ in channels]
    j = 0
    for k in range(n_out):
        t = k * total / (n_out - 1)
        while j < n - 2 and s[j + 1] < t:
            j += 1
        seg = s[j + 1] - s[j]
        w = (t - s[j]) / seg if seg > 0.0 else 0.0
        for c, ch in enumerate(channels):
            outs[c].append(ch[j] + (ch[j + 1] - ch[j]) * w)
    return outs


def nyquist_features(re, im, log_f, smooth_half, tail_points, n_resample):
    """re, im, log_f: lists (highest frequency first). Returns (curve channels, scalar features)."""
    y = [-v for v in im]
    re_s = smooth(re, smooth_half)
    y_s = smooth(y, smooth_half)
    r0, i0 = hf_intercept(re_s, y_s)
    apex, valley = arc_apex_valley(y_s, i0)
    xc, yc, rad = kasa_fit(re_s[i0:valley + 1], y_s[i0:valley + 1])
    slope = tail_slope(re_s[-tail_points:], y_s[-tail_points:])
    rct = re_s[valley] - r0
    span = re_s[-1] - r0
    if span <= 0.0:
        span = 1.0
    x_n = [(v - r0) / span for v in re_s]
    y_n = [v / span for v in y_s]
    curve = arc_length_resample([x_n, y_n, log_f], re_s, y_s, n_resample)
    scalars = [r0 * 10.0, rct * 10.0, span * 10.0, y_s[apex] * 10.0, log_f[apex] / 4.0,
               (yc / rad) if rad > 0.0 else 0.0, rad * 10.0, slope]
    return curve, scalars
