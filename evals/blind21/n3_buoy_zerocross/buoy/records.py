"""Synthetic heave records: a slowly varying JONSWAP-like sea built from random-phase components."""
from dataclasses import dataclass

import numpy as np


@dataclass
class HeaveRecord:
    station: str
    sample_rate_hz: float
    heave: np.ndarray  # metres, float64
    hs: np.ndarray     # generator's significant wave height per sample (the regression target)


def _jonswap(f, fp, gamma=3.3):
    sigma = np.where(f <= fp, 0.07, 0.09)
    r = np.exp(-((f - fp) ** 2) / (2.0 * sigma ** 2 * fp ** 2))
    return f ** -5.0 * np.exp(-1.25 * (fp / f) ** 4) * gamma ** r


def synthesize_fleet(n_buoys, hours, sample_rate_hz, n_components, seed):
    rng = np.random.default_rng(seed)
    n = int(hours * 3600 * sample_rate_hz)
    t = np.arange(n) / sample_rate_hz
    fleet = []
    for b in range(n_buoys):
        fp = rng.uniform(0.07, 0.14)
        freqs = np.linspace(0.6 * fp, 3.5 * fp, n_components)
        spec = _jonswap(freqs, fp)
        amp = np.sqrt(2.0 * spec * (freqs[1] - freqs[0]))
        amp /= np.sqrt(0.5 * np.sum(amp ** 2))  # unit variance
        phases = rng.uniform(0.0, 2.0 * np.pi, n_components)
        # storm build-up and decay: Hs between ~0.5 m and ~6 m over the record
        hs = 0.5 + 5.5 * (0.5 + 0.5 * np.sin(2.0 * np.pi * t / (hours * 3600 / rng.uniform(1.0, 3.0))
                                             + rng.uniform(0, 2 * np.pi)))
        heave = np.zeros(n)
        for k in range(0, n_components, 8):
            sl = slice(k, k + 8)
            heave += (amp[sl, None] * np.cos(2.0 * np.pi * freqs[sl, None] * t[None, :] + phases[sl, None])).sum(0)
        heave *= hs / 4.0
        heave += rng.normal(0.0, 0.02, n)  # accelerometer noise after double integration
        fleet.append(HeaveRecord(f"buoy-{b:02d}", sample_rate_hz, heave, hs))
    return fleet
