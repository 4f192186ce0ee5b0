"""Colour-space helpers."""
import colorsys

import numpy as np


def rgb_to_hsv_image(rgb):
    """Convert an HxWx3 float image in [0, 1] to HSV (all channels in [0, 1])."""
    h, w, _ = rgb.shape
    out = np.empty((h, w, 3), dtype=np.float64)
    for y in range(h):
        for x, (r, g, b) in enumerate(rgb[y].tolist()):
            out[y, x] = colorsys.rgb_to_hsv(r, g, b)
    return out
