"""Synthetic bird's-eye (inverse perspective mapped) road frames with two lane markings."""
import numpy as np


class RoadFrameSynth:
    def __init__(self, height, width, speckle_rate=0.01, dashed_right=True):
        self.h = height
        self.w = width
        self.speckle_rate = speckle_rate
        self.dashed_right = dashed_right
        self._cols = np.arange(width, dtype=np.float32)[None, :]
        self._rows = np.arange(height, dtype=np.float32)[:, None]

    def __call__(self, rng):
        h, w = self.h, self.w
        # asphalt: brightness level + sensor noise
        level = int(rng.integers(40, 80))
        frame = rng.integers(level, level + 50, size=(h, w), dtype=np.uint8)

        # lane geometry in the warped frame: x = a*y^2 + b*y + c (y measured from the top)
        curv = np.float32(rng.uniform(-1.0e-3, 1.0e-3))
        slope = np.float32(rng.uniform(-0.2, 0.2))
        left_c = np.float32(rng.uniform(0.22, 0.34) * w)
        lane_w = np.float32(rng.uniform(0.36, 0.44) * w)
        dy = self._rows - h
        left_x = curv * dy * dy + slope * dy + left_c
        right_x = left_x + lane_w
        half = np.float32(rng.uniform(3.0, 5.0))

        left = np.abs(self._cols - left_x) <= half
        right = np.abs(self._cols - right_x) <= half
        if self.dashed_right:
            phase = int(rng.integers(0, 40))
            on = ((np.arange(h) + phase) % 40) < 26
            right &= on[:, None]
        paint = left | right
        frame[paint] = rng.integers(190, 250, size=int(paint.sum()), dtype=np.uint8)

        # glare / gravel speckles that pass the threshold too
        n_speck = int(self.speckle_rate * h * w)
        frame[rng.integers(0, h, n_speck), rng.integers(0, w, n_speck)] = 235
        return frame
