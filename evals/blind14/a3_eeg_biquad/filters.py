"""IIR biquads (RBJ audio-EQ cookbook designs) run in direct form II, and EEG band powers."""
import math

import numpy as np


class Biquad:
    """One second-order section, normalised so that a0 == 1."""

    def __init__(self, b0, b1, b2, a1, a2):
        self.b0, self.b1, self.b2, self.a1, self.a2 = b0, b1, b2, a1, a2

    @classmethod
    def notch(cls, f0, fs, q):
        w0 = 2.0 * math.pi * f0 / fs
        alpha = math.sin(w0) / (2.0 * q)
        a0 = 1.0 + alpha
        return cls(1.0 / a0, -2.0 * math.cos(w0) / a0, 1.0 / a0, -2.0 * math.cos(w0) / a0, (1.0 - alpha) / a0)

    @classmethod
    def highpass(cls, f0, fs, q=1 / math.sqrt(2)):
        w0 = 2.0 * math.pi * f0 / fs
        alpha, cw = math.sin(w0) / (2.0 * q), math.cos(w0)
        a0 = 1.0 + alpha
        return cls((1.0 + cw) / 2.0 / a0, -(1.0 + cw) / a0, (1.0 + cw) / 2.0 / a0, -2.0 * cw / a0, (1.0 - alpha) / a0)

    @classmethod
    def lowpass(cls, f0, fs, q=1 / math.sqrt(2)):
        w0 = 2.0 * math.pi * f0 / fs
        alpha, cw = math.sin(w0) / (2.0 * q), math.cos(w0)
        a0 = 1.0 + alpha
        return cls((1.0 - cw) / 2.0 / a0, (1.0 - cw) / a0, (1.0 - cw) / 2.0 / a0, -2.0 * cw / a0, (1.0 - alpha) / a0)

    def process(self, samples):
        """Filter a sequence from rest (zero state), direct form II."""
        b0, b1, b2, a1, a2 = self.b0, self.b1, self.b2, self.a1, self.a2
        w1 = w2 = 0.0
        out = []
        for x in samples:
            w0 = x - a1 * w1 - a2 * w2
            out.append(b0 * w0 + b1 * w1 + b2 * w2)
            w2 = w1
            w1 = w0
        return out


class SOSCascade:
    """Second-order sections applied one after the other (like scipy's sosfilt, forward only)."""

    def __init__(self, sections):
        self.sections = list(sections)

    def __call__(self, samples):
        for sec in self.sections:
            samples = sec.process(samples)
        return samples


BANDS = (("delta", 1.0, 4.0), ("theta", 4.0, 8.0), ("alpha", 8.0, 13.0), ("beta", 13.0, 30.0))


def band_powers(x, fs):
    """log10 band power per channel of a (C, T) array from its periodogram."""
    spec = np.abs(np.fft.rfft(x, axis=-1)) ** 2 / x.shape[-1]
    freqs = np.fft.rfftfreq(x.shape[-1], 1.0 / fs)
    out = np.empty((x.shape[0], len(BANDS)))
    for k, (_, lo, hi) in enumerate(BANDS):
        sel = (freqs >= lo) & (freqs < hi)
        out[:, k] = np.log10(spec[:, sel].sum(axis=-1) + 1e-12)
    return out
