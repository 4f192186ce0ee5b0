"""Slant-range correction and time-varying gain for side-scan pings."""
import math


def tvg_curve(n_slant, range_res, spreading_db, absorption_db_per_m):
    """Amplitude gain per slant bin: spreading (k*log10 r) plus two-way absorption."""
    gain = []
    for i in range(n_slant):
        r = (i + 0.5) * range_res
        db = spreading_db * math.log10(r) + 2.0 * absorption_db_per_m * r
        gain.append(10.0 ** (db / 20.0))
    return gain


def slant_to_ground(ping, altitude, range_res, ground_res, n_ground, gain, beam_floor):
    """Resample one side of one ping from slant range onto a flat-seabed ground-range grid.

    Each ground bin j sits at g = (j + 1/2) * ground_res; its slant range is
    r = sqrt(g^2 + h^2). The gain-compensated echo is linearly interpolated between
    the two neighbouring slant bins, then divided by a simple grazing-angle beam pattern
    (beam_floor + (1 - beam_floor) * sin(grazing)), sin(grazing) = h / r.
    Bins beyond the last slant sample stay 0.
    """
    out = [0.0] * n_ground
    n = len(ping)
    h2 = altitude * altitude
    for j in range(n_ground):
        g = (j + 0.5) * ground_res
        r = math.sqrt(g * g + h2)
        f = r / range_res - 0.5
        i0 = int(f)
        if i0 + 1 >= n:
            break
        w = f - i0
        a = ping[i0] * gain[i0]
        b = ping[i0 + 1] * gain[i0 + 1]
        beam = beam_floor + (1.0 - beam_floor) * (altitude / r)
        out[j] = (a + (b - a) * w) / beam
    return out


def correct_swath(swath, altitudes, range_res, ground_res, n_ground, gain, beam_floor):
    """swath: (2, P, S) array; altitudes: per-ping list. Returns nested lists (2, P, n_ground)."""
    result = []
    for side in range(swath.shape[0]):
        rows = []
        for p in range(swath.shape[1]):
            ping = swath[side, p].tolist()
            rows.append(slant_to_ground(ping, altitudes[p], range_res, ground_res, n_ground, gain, beam_floor))
        result.append(rows)
    return result
