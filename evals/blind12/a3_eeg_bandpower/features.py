"""Re-referencing, baseline correction and band-power features (an MNE-like fit/transform API)."""
import math

import numpy as np


def set_average_reference(data):
    """Common average reference: subtract the mean over channels at each time point."""
    return data - data.mean(axis=0, keepdims=True)


def apply_baseline(data, times, baseline):
    lo, hi = baseline
    sel = (times >= lo) & (times < hi)
    return data - data[:, sel].mean(axis=1, keepdims=True)


class BandPower:
    """Absolute or relative spectral power per channel and band from a Hann-windowed periodogram.

    Only the DFT bins that fall inside the requested bands are evaluated (the spectrum above the
    beta band is never used), with the window's mean removed per channel first.
    """

    def __init__(self, sfreq, bands, relative=True):
        self.sfreq = float(sfreq)
        self.bands = dict(bands)
        self.relative = relative
        self.n_times_ = None

    def fit(self, n_times):
        self.n_times_ = int(n_times)
        res = self.sfreq / self.n_times_
        self.band_bins_ = {name: [k for k in range(self.n_times_ // 2 + 1) if lo <= k * res < hi]
                           for name, (lo, hi) in self.bands.items()}
        self.bins_ = sorted({k for ks in self.band_bins_.values() for k in ks})
        return self

    def _hann(self):
        n = self.n_times_
        return [0.5 - 0.5 * math.cos(2.0 * math.pi * i / (n - 1)) for i in range(n)]

    def _psd_channel(self, x, window, scale):
        n = self.n_times_
        mean = 0.0
        for v in x:
            mean += v
        mean /= n
        xw = [(v - mean) * w for v, w in zip(x, window)]
        psd = {}
        for k in self.bins_:
            re = im = 0.0
            for i, v in enumerate(xw):
                angle = 2.0 * math.pi * k * i / n
                re += v * math.cos(angle)
                im -= v * math.sin(angle)
            psd[k] = 2.0 * (re * re + im * im) / scale
        return psd

    def transform(self, data):
        """data: (n_channels, n_times) float64 -> (n_channels, n_bands) float64 log10 power."""
        if data.shape[1] != self.n_times_:
            raise ValueError(f"fitted for {self.n_times_} samples, got {data.shape[1]}")
        window = self._hann()
        scale = 0.0
        for w in window:
            scale += w * w
        scale *= self.sfreq
        out = []
        for x in data.tolist():
            psd = self._psd_channel(x, window, scale)
            powers = []
            for name in self.bands:
                total = 0.0
                for k in self.band_bins_[name]:
                    total += psd[k]
                powers.append(total)
            if self.relative:
                denom = 0.0
                for p in powers:
                    denom += p
                powers = [p / denom for p in powers]
            out.append([math.log10(p) for p in powers])
        return np.array(out, dtype=np.float64)
