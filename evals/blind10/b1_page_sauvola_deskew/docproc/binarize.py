"""Sauvola local thresholding (Sauvola & Pietikainen, 2000) with summed-area tables."""
import math

import numpy as np


def integral_images(rows):
    """Summed-area tables of the values and of their squares, with a zero top row / left column."""
    h, w = len(rows), len(rows[0])
    ii = [[0] * (w + 1) for _ in range(h + 1)]
    ii2 = [[0] * (w + 1) for _ in range(h + 1)]
    for y, row in enumerate(rows, start=1):
        acc = acc2 = 0
        above, above2 = ii[y - 1], ii2[y - 1]
        cur, cur2 = ii[y], ii2[y]
        for x, v in enumerate(row, start=1):
            acc += v
            acc2 += v * v
            cur[x] = above[x] + acc
            cur2[x] = above2[x] + acc2
    return ii, ii2


def box_sum(table, y0, x0, y1, x1):
    return table[y1][x1] - table[y0][x1] - table[y1][x0] + table[y0][x0]


class SauvolaBinarize:
    """T(x, y) = m(x, y) * (1 + k * (s(x, y) / R - 1)); a pixel is ink when it is <= T.

    The window is clipped at the page border (the mean and deviation are taken over the pixels
    that exist), as in scikit-image's threshold_sauvola with mode='constant' replaced by clipping.
    """

    def __init__(self, window=15, k=0.2, r=128.0):
        if window % 2 == 0:
            raise ValueError("window must be odd")
        self.window = window
        self.k = float(k)
        self.r = float(r)

    def thresholds(self, gray):
        rows = gray.tolist()
        h, w = len(rows), len(rows[0])
        ii, ii2 = integral_images(rows)
        half = self.window // 2
        k, r = self.k, self.r
        out = []
        for y in range(h):
            y0, y1 = max(0, y - half), min(h, y + half + 1)
            line = []
            for x in range(w):
                x0, x1 = max(0, x - half), min(w, x + half + 1)
                n = (y1 - y0) * (x1 - x0)
                mean = box_sum(ii, y0, x0, y1, x1) / n
                var = box_sum(ii2, y0, x0, y1, x1) / n - mean * mean
                std = math.sqrt(var) if var > 0 else 0.0
                line.append(mean * (1.0 + k * (std / r - 1.0)))
            out.append(line)
        return out

    def __call__(self, sample):
        gray = sample["gray"]
        thr = self.thresholds(gray)
        ink = [[1 if v <= t else 0 for v, t in zip(row, trow)] for row, trow in zip(gray.tolist(), thr)]
        sample["ink"] = np.asarray(ink, dtype=np.uint8)
        return sample

    def __repr__(self):
        return f"{type(self).__name__}(window={self.window}, k={self.k}, r={self.r})"
