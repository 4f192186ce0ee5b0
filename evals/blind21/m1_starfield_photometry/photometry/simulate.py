"""Synthetic CCD frames: Gaussian PSF stars on a flat sky with shot and read noise."""
import numpy as np


class FrameSimulator:
    def __init__(self, frame_size=160, stars_per_frame=(220, 380), sky_level=220.0, read_noise=6.0):
        self.size = int(frame_size)
        self.n_min, self.n_max = int(stars_per_frame[0]), int(stars_per_frame[1])
        self.sky = float(sky_level)
        self.read_noise = float(read_noise)
        yy, xx = np.mgrid[-4:5, -4:5]
        self._r2 = (yy * yy + xx * xx).astype(np.float64)
        self._dy = yy.ravel()[None, :]
        self._dx = xx.ravel()[None, :]

    def render(self, rng):
        """Return (raw uint16 frame, transparency in [0.3, 1])."""
        size = self.size
        transparency = rng.uniform(0.3, 1.0)
        seeing = rng.uniform(0.9, 1.6)
        n = int(rng.integers(self.n_min, self.n_max + 1))
        ys = rng.integers(4, size + 4, size=n)
        xs = rng.integers(4, size + 4, size=n)
        mags = rng.uniform(8.5, 12.0, size=n)
        fluxes = transparency * 10.0 ** (-0.4 * (mags - 18.0))
        psf = np.exp(-self._r2 / (2.0 * seeing * seeing))
        psf /= psf.sum()
        # splat every 9x9 PSF stamp at once: flat pixel index -> summed flux
        side = size + 8
        flat = (ys[:, None] + self._dy) * side + (xs[:, None] + self._dx)
        stamps = fluxes[:, None] * psf.ravel()[None, :]
        img = np.bincount(flat.ravel(), weights=stamps.ravel(), minlength=side * side)
        img = img.reshape(side, side)[4:-4, 4:-4] + self.sky
        # shot noise (Gaussian limit of Poisson at these count levels) plus read noise
        noise = np.sqrt(img + self.read_noise ** 2)
        img = img + noise * rng.standard_normal(img.shape)
        raw = np.clip(np.rint(img + 100.0), 0, 65535).astype(np.uint16)  # +100 ADU bias
        return raw, transparency
