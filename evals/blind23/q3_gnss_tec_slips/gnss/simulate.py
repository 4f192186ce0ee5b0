"""Synthetic dual-frequency observations for satellite passes over one receiver."""
import numpy as np

from .constants import F1, F2, LAMBDA1, LAMBDA2, R_EARTH_KM


def simulate_arc(arc_id, cfg, seed):
    rng = np.random.default_rng([seed, arc_id])
    d = cfg["data"]
    n = int(rng.integers(d["min_epochs"], d["max_epochs"]))
    dt = d["interval_s"]
    k = np.arange(n, dtype=np.float64)
    t0 = float(rng.uniform(0, 86400))
    t = t0 + dt * k
    # receiver outages: drop one or two chunks of epochs
    keep = np.ones(n, dtype=bool)
    for _ in range(int(rng.integers(0, 3))):
        s = int(rng.integers(50, n - 60))
        keep[s:s + int(rng.integers(3, 12))] = False
    emax = rng.uniform(25.0, 85.0)
    elev = 5.0 + (emax - 5.0) * np.sin(np.pi * (k + 0.5) / n)
    h = cfg["preprocess"]["shell_height_km"]
    z = np.cos(np.radians(elev)) * R_EARTH_KM / (R_EARTH_KM + h)
    mapping = 1.0 / np.sqrt(1.0 - z * z)
    tod = (t % 86400.0) / 3600.0
    vtec = 12.0 + 9.0 * np.cos(2 * np.pi * (tod - 14.0) / 24.0) + rng.uniform(-2, 2) \
        + 0.8 * np.sin(2 * np.pi * t / rng.uniform(1800, 5400))
    stec = vtec * mapping
    i1 = 40.3e16 * stec / F1 ** 2
    i2 = 40.3e16 * stec / F2 ** 2
    rho = 2.0e7 + 4.0e6 * np.cos(np.radians(elev)) + rng.normal(0, 0.002, n)
    sigma = 0.25 / np.sin(np.radians(elev))
    p1 = rho + i1 + rng.normal(0, 1.0, n) * sigma
    p2 = rho + i2 + rng.normal(0, 1.0, n) * sigma
    n1 = np.full(n, float(rng.integers(-2_000_000, 2_000_000)))
    n2 = np.full(n, float(rng.integers(-2_000_000, 2_000_000)))
    for _ in range(int(rng.integers(1, 4))):  # cycle slips
        s = int(rng.integers(30, n - 30))
        n1[s:] += float(rng.integers(1, 6))
        n2[s:] += float(rng.integers(-3, 4))
    l1 = (rho - i1) / LAMBDA1 + n1 + rng.normal(0, 0.003, n)
    l2 = (rho - i2) / LAMBDA2 + n2 + rng.normal(0, 0.003, n)
    return {"t": t[keep], "elev": elev[keep], "L1": l1[keep], "L2": l2[keep],
            "P1": p1[keep], "P2": p2[keep], "vtec": vtec[keep]}
