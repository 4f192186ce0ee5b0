"""Synthetic foot-pod recordings: impact peaks at every foot strike, sway and sensor noise."""
import numpy as np

ZONES = ("easy", "tempo", "interval")
ZONE_CADENCE = {0: (150.0, 165.0), 1: (163.0, 178.0), 2: (175.0, 195.0)}  # steps per minute
ZONE_IMPACT = {0: 1.1, 1: 1.5, 2: 2.0}                                      # g


def session_zone(seed, session):
    return int(np.random.default_rng([seed, session, 0]).integers(len(ZONES)))


def render_window(seed, session, window, zone, fs, seconds):
    """Return (3, n) float64 acceleration in g for one window of one session."""
    rng = np.random.default_rng([seed, session, window + 1])
    n = int(round(fs * seconds))
    t = np.arange(n) / fs
    lo, hi = ZONE_CADENCE[zone]
    cadence = rng.uniform(lo, hi)
    period = 60.0 / cadence
    jitter = rng.uniform(0.01, 0.06)
    n_steps = int(seconds / period) + 2
    intervals = period * (1.0 + jitter * rng.standard_normal(n_steps))
    strikes = rng.uniform(0.0, period) + np.concatenate([[0.0], np.cumsum(intervals[:-1])])
    amp = ZONE_IMPACT[zone] * rng.uniform(0.8, 1.2, n_steps)
    width = rng.uniform(0.012, 0.02)
    # Each impact is a Gaussian pulse; only +-8 samples (> 4 sigma) around a strike matter.
    pos = np.rint(strikes * fs).astype(np.int64)[:, None] + np.arange(-8, 9)[None, :]
    pulse = amp[:, None] * np.exp(-0.5 * ((pos / fs - strikes[:, None]) / width) ** 2)
    inside = (pos >= 0) & (pos < n)
    vertical = np.bincount(pos[inside], weights=pulse[inside], minlength=n)
    vertical += 1.0 + 0.25 * np.sin(2 * np.pi * t / (2 * period))
    forward = 0.3 * np.sin(2 * np.pi * t / period + rng.uniform(0, 2 * np.pi))
    lateral = 0.15 * np.sin(np.pi * t / period)
    acc = np.stack([forward, lateral, vertical])
    acc += rng.normal(0.0, 0.08, acc.shape)
    return acc
