"""Per-window harmonic analysis (Goertzel), THD and crest factor."""
import math

import numpy as np


class HarmonicFeatures:
    """For each window of `cycles` mains cycles: magnitudes of harmonics 1..H by the Goertzel
    algorithm (harmonic h falls exactly on DFT bin h*cycles), THD, crest factor and RMS.

    Output per window: [h2/h1, ..., hH/h1, THD, crest factor, RMS] (H + 2 values).
    """

    def __init__(self, window, cycles, max_harmonic=25):
        self.window = window
        self.cycles = cycles
        self.max_harmonic = max_harmonic
        self.coeffs = [2.0 * math.cos(2.0 * math.pi * h * cycles / window) for h in range(1, max_harmonic + 1)]

    def goertzel(self, samples, coeff):
        s1 = s2 = 0.0
        for x in samples:
            s = x + coeff * s1 - s2
            s2 = s1
            s1 = s
        power = s1 * s1 + s2 * s2 - coeff * s1 * s2
        return math.sqrt(max(power, 0.0)) * 2.0 / self.window

    def window_features(self, samples):
        mags = [self.goertzel(samples, c) for c in self.coeffs]
        fundamental = max(mags[0], 1e-6)
        distortion = 0.0
        for m in mags[1:]:
            distortion += m * m
        thd = math.sqrt(distortion) / fundamental
        energy = 0.0
        peak = 0.0
        for x in samples:
            energy += x * x
            peak = max(peak, abs(x))
        rms = math.sqrt(energy / len(samples))
        crest = peak / max(rms, 1e-6)
        return [m / fundamental for m in mags[1:]] + [thd, crest, rms]

    def __call__(self, waveform):
        n = len(waveform) // self.window
        return np.array([self.window_features(waveform[i * self.window:(i + 1) * self.window].tolist())
                         for i in range(n)], dtype=np.float32)
