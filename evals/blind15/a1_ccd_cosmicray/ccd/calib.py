"""Master calibration frames and the per-pixel reduction."""
from dataclasses import dataclass

import numpy as np


@dataclass
class MasterFrames:
    bias: np.ndarray   # ADU
    dark: np.ndarray   # ADU / s
    flat: np.ndarray   # normalised response

    def window(self, y0, x0, size):
        sl = (slice(y0, y0 + size), slice(x0, x0 + size))
        return self.bias[sl], self.dark[sl], self.flat[sl]


def reduce_window(raw, bias, dark, flat, exptime):
    """(raw - bias - dark * t) / flat, in float64 ADU."""
    return (raw.astype(np.float64) - bias - dark * exptime) / flat
