"""Synthetic load-sensor series: four operating regimes, each with its own waveform."""
import numpy as np
from torch.utils.data import Dataset


def make_series(length, regime_len, n_regimes, seed):
    """One float32 series and the regime of every sample, generated deterministically from ``seed``."""
    rng = np.random.default_rng(seed)
    regimes = rng.integers(0, n_regimes, length // regime_len + 1).repeat(regime_len)[:length]
    freqs = np.linspace(0.01, 0.08, n_regimes, dtype=np.float32)
    amps = np.linspace(1.0, 2.0, n_regimes, dtype=np.float32)
    t = np.arange(length, dtype=np.float32)
    clean = amps[regimes] * np.sin(2 * np.pi * freqs[regimes] * t)
    noise = rng.standard_normal(length, dtype=np.float32)
    return (clean + 0.5 * noise).astype(np.float32), regimes


class SensorWindows(Dataset):
    """Windows of ``window`` samples every ``stride`` samples; the label is the regime at the window's end."""

    def __init__(self, n_windows, window, stride, regime_len, n_regimes, seed):
        length = (n_windows - 1) * stride + window
        self.series, self.regimes = make_series(length, regime_len, n_regimes, seed)
        self.window = window
        self.stride = stride
        self.n_windows = n_windows

    def __len__(self):
        return self.n_windows

    def __getitem__(self, i):
        start = i * self.stride
        row = self.series[start:start + self.window]
        return {"window": [float(v) for v in row], "label": int(self.regimes[start + self.window - 1])}
