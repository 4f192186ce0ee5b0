"""Synthetic HPLC-UV runs: a drifting baseline plus exponentially modified Gaussian peaks.

Each run has a detected peak table (retention time, height, width, area), the way an
integration package exports it; the class is the compound family of the main analyte.
"""
import numpy as np

_CLASS_RT = (2.1, 3.4, 4.6, 6.0, 7.7)   # main analyte retention (min)


def simulate_run(rng, trace_len, max_peaks, n_classes):
    label = int(rng.integers(n_classes))
    t = np.linspace(0.0, 10.0, trace_len)
    y = 2.0 + 0.3 * t + 0.5 * np.sin(t * rng.uniform(0.2, 0.6)) + rng.normal(0, 0.15, trace_len)
    n = int(rng.integers(3, max_peaks + 1))
    rts = np.sort(np.concatenate([[_CLASS_RT[label] + rng.normal(0, 0.08)], rng.uniform(0.5, 9.5, n - 1)]))
    table = np.zeros((n, 4), dtype=np.float32)
    for k, rt in enumerate(rts):
        h = rng.uniform(5, 120) * (3.0 if abs(rt - _CLASS_RT[label]) < 0.3 else 1.0)
        w = rng.uniform(0.02, 0.09)
        lo, hi = np.searchsorted(t, [rt - 6 * w, rt + 10 * w])
        tt = t[lo:hi] - rt
        y[lo:hi] += h * np.exp(-0.5 * (tt / w) ** 2) * (1.0 + 0.4 * np.clip(tt, 0, None) / w)
        table[k] = (rt, h, w, h * w * 2.5066)
    return y.astype(np.float32), table, label


class ChromatogramRuns:
    """All runs held in memory (as exported from the CDS), indexed like a dataset."""

    def __init__(self, cfg):
        rng = np.random.default_rng(cfg.seed)
        self.runs = [simulate_run(rng, cfg.trace_len, cfg.max_peaks, cfg.n_classes) for _ in range(cfg.n_runs)]

    def __len__(self):
        return len(self.runs)

    def __getitem__(self, i):
        trace, table, label = self.runs[i]
        return {"trace": trace, "peaks": table, "label": label}
