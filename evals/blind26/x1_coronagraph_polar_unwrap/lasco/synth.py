"""Synthetic white-light coronagraph frames (K-corona streamers plus an optional CME front)."""
import numpy as np


class CoronaSimulator:
    def __init__(self, size=128, occulter_radius=12.0, cme_fraction=0.5, n_modes=3):
        self.size = size
        self.occulter_radius = occulter_radius
        self.cme_fraction = cme_fraction
        c = (size - 1) / 2.0
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
        self._r = np.maximum(np.hypot(xx - c, yy - c), 1.0)
        self._theta = np.arctan2(yy - c, xx - c)
        self._falloff = 4.0e3 * self._r ** -2.2
        k = np.arange(1, n_modes + 1)[:, None, None]
        self._cos_k = np.cos(k * self._theta)
        self._sin_k = np.sin(k * self._theta)
        self._occulted = self._r < occulter_radius

    def frame(self, rng):
        n = len(self._cos_k)
        amp = rng.uniform(0.05, 0.4, size=n)
        phase = rng.uniform(0, 2 * np.pi, size=n)
        # sum_k a_k cos(k th + phi_k), expanded so the angular basis is precomputed
        modes = np.tensordot(amp * np.cos(phase), self._cos_k, 1) - np.tensordot(amp * np.sin(phase), self._sin_k, 1)
        img = self._falloff * (1.0 + modes)
        has_cme = rng.random() < self.cme_fraction
        if has_cme:
            th0 = rng.uniform(-np.pi, np.pi)
            r0 = rng.uniform(22.0, 50.0)
            width = rng.uniform(0.3, 0.9)
            dth = (self._theta - th0 + np.pi) % (2 * np.pi) - np.pi
            front = np.exp(-0.5 * (((self._r - r0) / 3.0) ** 2 + (dth / width) ** 2))
            img += rng.uniform(1.0, 3.0) * front
        img *= rng.uniform(0.8, 1.25)
        img += rng.normal(0.0, 0.05, size=img.shape)
        img[self._occulted] = 0.0
        return np.clip(img, 0.0, None).astype(np.float32), int(has_cme)
