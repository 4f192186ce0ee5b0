"""Spectral processing per range gate: noise floor and the first three moments."""
import math

import numpy as np
import torch


class SpectralMoments:
    """Per beam and gate: Hildebrand-Sekhon noise floor, then radial velocity
    (first moment), spectral width (sqrt of the second central moment) and SNR.

    Returns a float32 tensor [beams, 4, gates]: velocity, width, SNR in dB and a
    quality flag (SNR above threshold); velocity and width are zeroed where the
    flag is off.
    """

    def __init__(self, vel_axis, hs_min_points=8, spectral_averages=40, snr_threshold_db=-18.0):
        self.vel = [float(v) for v in vel_axis]
        self.hs_min_points = hs_min_points
        self.navg = spectral_averages
        self.snr_threshold_db = snr_threshold_db

    def noise_floor(self, spec):
        """Hildebrand & Sekhon (1974): the largest set of the lowest points that
        still looks like white noise, mean^2 >= navg * variance."""
        ordered = sorted(spec)
        s = 0.0
        s2 = 0.0
        noise = ordered[0]
        for n, p in enumerate(ordered, start=1):
            s += p
            s2 += p * p
            if n < self.hs_min_points:
                continue
            mean = s / n
            var = s2 / n - mean * mean
            if mean * mean >= self.navg * var:
                noise = mean
        return noise

    def moments(self, spec):
        noise = self.noise_floor(spec)
        p0 = 0.0
        p1 = 0.0
        for p, v in zip(spec, self.vel):
            if p > noise:
                p0 += p - noise
                p1 += (p - noise) * v
        if p0 <= 0.0:
            return 0.0, 0.0, -40.0, 0.0
        vr = p1 / p0
        p2 = 0.0
        for p, v in zip(spec, self.vel):
            if p > noise:
                p2 += (p - noise) * (v - vr) * (v - vr)
        width = math.sqrt(p2 / p0)
        snr_db = 10.0 * math.log10(p0 / (noise * len(spec)))
        ok = 1.0 if snr_db > self.snr_threshold_db else 0.0
        return vr * ok, width * ok, snr_db, ok

    def __call__(self, spectra):
        beams, gates, _ = spectra.shape
        out = np.zeros((beams, 4, gates), dtype=np.float64)
        rows = spectra.tolist()
        for b in range(beams):
            for g in range(gates):
                out[b, :, g] = self.moments(rows[b][g])
        return torch.from_numpy(out.astype(np.float32))
