"""Click-train features for a hydrophone clip (the usual click-detector front end).

pre-emphasis -> Teager-Kaiser energy -> rectified moving-sum envelope -> adaptive threshold
(median * factor) -> peak picking with a refractory period -> ICI histogram, per-click
zero-crossing counts, and a block-max pooled envelope.
"""


def preemphasis(x, a):
    return [x[n] - a * x[n - 1] for n in range(1, len(x))]


def teager_kaiser(y):
    return [y[n] * y[n] - y[n - 1] * y[n + 1] for n in range(1, len(y) - 1)]


def moving_abs_sum(psi, k):
    out = []
    for n in range(len(psi) - k + 1):
        s = 0.0
        for j in range(k):
            s += abs(psi[n + j])
        out.append(s)
    return out


def pick_clicks(env, thr, min_gap):
    clicks = []
    last = -min_gap
    for n in range(1, len(env) - 1):
        if env[n] > thr and env[n] >= env[n - 1] and env[n] > env[n + 1]:
            if n - last >= min_gap:
                clicks.append(n)
                last = n
    return clicks


def zero_crossings(y, centre, half):
    lo, hi = max(1, centre - half), min(len(y), centre + half)
    count = 0
    for n in range(lo, hi):
        if (y[n - 1] < 0.0) != (y[n] < 0.0):
            count += 1
    return count


def click_features(wave, cfg):
    x = wave.tolist()
    y = preemphasis(x, cfg["preemphasis"])
    psi = teager_kaiser(y)
    env = moving_abs_sum(psi, cfg["envelope_len"])
    noise = sorted(env)[len(env) // 2]
    clicks = pick_clicks(env, noise * cfg["threshold_factor"], cfg["min_ici_samples"])

    ici_hist = [0] * cfg["ici_bins"]
    for a, b in zip(clicks[:-1], clicks[1:]):
        ici_hist[min((b - a) // cfg["ici_bin_width"], cfg["ici_bins"] - 1)] += 1
    zc_hist = [0] * cfg["zc_bins"]
    for c in clicks:
        zc = zero_crossings(y, c + cfg["envelope_len"] // 2, cfg["zc_half_window"])
        zc_hist[min(zc // 4, cfg["zc_bins"] - 1)] += 1

    p = cfg["pool"]
    pooled = [max(env[i:i + p]) for i in range(0, len(env) - p + 1, p)]
    return pooled, ici_hist, zc_hist, len(clicks), noise
