"""Toy variable-star light curves with survey-like irregular cadence."""
import numpy as np

CLASSES = ["rrab", "rrc", "cepheid", "eclipsing", "mira", "constant"]


def _cadence(rng, n_obs, baseline):
    # clustered nights with seasonal gaps, a few observations per night
    nights = np.sort(rng.uniform(0.0, baseline, size=n_obs // 3 + 1))
    t = np.repeat(nights, 3)[:n_obs] + rng.uniform(0.0, 0.3, size=n_obs)
    return np.sort(t)


def _shape(kind, phase, rng):
    if kind == "rrab":
        # fast rise, slow decline
        return np.where(phase < 0.15, phase / 0.15, 1.0 - (phase - 0.15) / 0.85) - 0.5
    if kind in ("rrc", "mira"):
        return 0.5 * np.cos(2 * np.pi * phase)
    if kind == "cepheid":
        return 0.5 * np.cos(2 * np.pi * phase) + 0.15 * np.cos(4 * np.pi * phase + 0.7)
    if kind == "eclipsing":
        d1 = np.exp(-0.5 * ((phase - 0.25) / 0.03) ** 2)
        d2 = rng.uniform(0.2, 0.9) * np.exp(-0.5 * ((phase - 0.75) / 0.03) ** 2)
        return d1 + d2
    return np.zeros_like(phase)


PERIODS = {"rrab": (0.45, 0.9), "rrc": (0.25, 0.42), "cepheid": (3.0, 30.0),
           "eclipsing": (0.5, 5.0), "mira": (100.0, 400.0), "constant": (1.0, 1.0)}
AMPS = {"rrab": (0.5, 1.1), "rrc": (0.25, 0.55), "cepheid": (0.4, 1.0),
        "eclipsing": (0.3, 1.2), "mira": (2.0, 5.0), "constant": (0.0, 0.0)}


def simulate_star(rng, kind, baseline, min_obs, max_obs):
    n_obs = int(rng.integers(min_obs, max_obs + 1))
    t = _cadence(rng, n_obs, baseline)
    period = rng.uniform(*PERIODS[kind])
    amp = rng.uniform(*AMPS[kind])
    phase = ((t / period) + rng.uniform()) % 1.0
    mag0 = rng.uniform(12.0, 17.5)
    err = 0.01 + 0.02 * np.exp(mag0 - 17.5) + rng.uniform(0.0, 0.01, size=n_obs)
    mag = mag0 + amp * _shape(kind, phase, rng) + err * rng.standard_normal(n_obs)
    return t, mag, err
