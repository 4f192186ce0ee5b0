"""Zero up-crossing wave-by-wave analysis (IAHR/PIANC conventions)."""
from collections import namedtuple

Wave = namedtuple("Wave", ["height", "period", "crest", "trough"])


def zero_upcrossing_waves(eta, dt):
    """Split a demeaned elevation record into individual waves at zero up-crossings.

    Crossing times are linearly interpolated between samples; a wave runs from one
    up-crossing to the next, its height is crest minus trough inside that interval.
    """
    crossings = []
    for i in range(1, len(eta)):
        if eta[i - 1] < 0.0 <= eta[i]:
            frac = eta[i - 1] / (eta[i - 1] - eta[i])
            crossings.append((i, (i - 1 + frac) * dt))
    waves = []
    for (i0, t0), (i1, t1) in zip(crossings, crossings[1:]):
        seg = eta[i0:i1]
        crest, trough = max(seg), min(seg)
        waves.append(Wave(crest - trough, t1 - t0, crest, trough))
    return waves


def wave_statistics(waves):
    """H1/3, Hmax, Hmean, Tz, T1/3 and the wave count of one burst."""
    if not waves:
        return {"h13": 0.0, "hmax": 0.0, "hmean": 0.0, "tz": 0.0, "t13": 0.0, "n_waves": 0}
    ranked = sorted(waves, key=lambda w: w.height, reverse=True)
    n3 = max(1, len(ranked) // 3)
    top = ranked[:n3]
    return {
        "h13": sum(w.height for w in top) / n3,
        "hmax": ranked[0].height,
        "hmean": sum(w.height for w in ranked) / len(ranked),
        "tz": sum(w.period for w in waves) / len(waves),
        "t13": sum(w.period for w in top) / n3,
        "n_waves": len(waves),
    }
