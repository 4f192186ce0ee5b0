"""Slant TEC from dual-frequency observations: geometry-free combination, cycle-slip
detection and carrier-to-code levelling of each continuous arc."""
import numpy as np

from .constants import K_TECU, LAMBDA1, LAMBDA2, R_EARTH_KM


def mapping_function(elev_deg, shell_height_km):
    z = np.cos(np.radians(elev_deg)) * R_EARTH_KM / (R_EARTH_KM + shell_height_km)
    return 1.0 / np.sqrt(1.0 - z * z)


def level_arc(obs, slip_threshold_tecu=1.0, max_gap_s=90.0, min_arc_epochs=20):
    """Return (levelled slant TEC in TECU, valid mask, sub-arc id) for one satellite pass.

    A new sub-arc starts at a data gap or where the geometry-free phase jumps by more than
    `slip_threshold_tecu` between epochs (cycle slip). Each sub-arc's phase TEC is shifted onto
    the code TEC by the elevation-weighted mean of (P4 - L4); sub-arcs shorter than
    `min_arc_epochs` are discarded.
    """
    t = obs["t"].tolist()
    l1 = obs["L1"].tolist()
    l2 = obs["L2"].tolist()
    p1 = obs["P1"].tolist()
    p2 = obs["P2"].tolist()
    w = (np.sin(np.radians(obs["elev"])) ** 2).tolist()
    n = len(t)

    l4 = [0.0] * n
    arc_id = [0] * n
    sums = []  # per sub-arc: [sum w, sum w * (P4 - L4), count]
    cur = -1
    for i in range(n):
        gf = LAMBDA1 * l1[i] - LAMBDA2 * l2[i]
        p4 = p2[i] - p1[i]
        if i == 0 or t[i] - t[i - 1] > max_gap_s or abs(gf - l4[i - 1]) / K_TECU > slip_threshold_tecu:
            cur += 1
            sums.append([0.0, 0.0, 0])
        l4[i] = gf
        arc_id[i] = cur
        acc = sums[cur]
        acc[0] += w[i]
        acc[1] += w[i] * (p4 - gf)
        acc[2] += 1

    stec = [0.0] * n
    valid = [False] * n
    for i in range(n):
        sw, swd, cnt = sums[arc_id[i]]
        if cnt >= min_arc_epochs:
            stec[i] = (l4[i] + swd / sw) / K_TECU
            valid[i] = True
    return np.array(stec), np.array(valid), np.array(arc_id)
