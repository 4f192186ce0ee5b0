"""Gaussian heatmap targets, one channel per joint (SimpleBaselines / HRNet style)."""
import math


def _gaussian(xx, yy, cx, cy, sigma):
    return math.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma * sigma))


def render_heatmaps(joints, visible, out_size, stride, sigma):
    """joints: list of (x, y) in input pixels; visible: list of 0/1.

    Returns (heatmaps as nested lists [K][H][W], target_weight list [K]).
    The peak sits on the joint rounded to the heatmap grid; the Gaussian is cut off at 3 sigma.
    """
    radius = int(3 * sigma)
    heatmaps = []
    weights = []
    for (x, y), vis in zip(joints, visible):
        heat = [[0.0] * out_size for _ in range(out_size)]
        cx = int(x / stride + 0.5)
        cy = int(y / stride + 0.5)
        inside = 0 <= cx < out_size and 0 <= cy < out_size
        if vis and inside:
            for yy in range(max(0, cy - radius), min(out_size, cy + radius + 1)):
                row = heat[yy]
                for xx in range(max(0, cx - radius), min(out_size, cx + radius + 1)):
                    row[xx] = _gaussian(xx, yy, cx, cy, sigma)
            weights.append(1.0)
        else:
            weights.append(0.0)
        heatmaps.append(heat)
    return heatmaps, weights
