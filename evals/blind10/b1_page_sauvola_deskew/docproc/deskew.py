"""Skew estimation by horizontal projection profiles over a few candidate angles (Postl's method)."""
import math

import numpy as np


def profile_energy(points, t, cx, height):
    """Sum of squared row counts after shearing the ink points by tan(angle) = t."""
    counts = {}
    for y, x in points:
        row = math.floor(y - (x - cx) * t + 0.5)
        if 0 <= row < height:
            counts[row] = counts.get(row, 0) + 1
    return sum(c * c for c in counts.values())


class ProjectionDeskew:
    """Pick the angle whose sheared projection profile is sharpest, then undo the shear."""

    def __init__(self, angles=(-3.0, -1.5, 0.0, 1.5, 3.0)):
        self.angles = [float(a) for a in angles]

    def estimate(self, ink):
        h, w = ink.shape
        cx = (w - 1) / 2.0
        points = [(y, x) for y, row in enumerate(ink.tolist()) for x, v in enumerate(row) if v]
        best_angle, best_score = 0.0, -1
        for angle in self.angles:
            score = profile_energy(points, math.tan(math.radians(angle)), cx, h)
            if score > best_score:  # the first of equal scores wins
                best_angle, best_score = angle, score
        return best_angle

    def __call__(self, sample):
        ink = sample["ink"]
        h, w = ink.shape
        angle = self.estimate(ink)
        t = math.tan(math.radians(angle))
        cx = (w - 1) / 2.0
        rows = ink.tolist()
        out = [[0] * w for _ in range(h)]
        for x in range(w):
            shift = math.floor((x - cx) * t + 0.5)
            for y in range(h):
                src = y + shift
                if 0 <= src < h:
                    out[y][x] = rows[src][x]
        sample["ink"] = np.asarray(out, dtype=np.uint8)
        sample["angle"] = angle
        return sample

    def __repr__(self):
        return f"{type(self).__name__}(angles={self.angles})"
