"""Farthest point sampling and kNN grouping (the PointNet++ set-abstraction front end)."""
import numpy as np


def _sqdist(a, b):
    dx = a[0] - b[0]
    dy = a[1] - b[1]
    dz = a[2] - b[2]
    return dx * dx + dy * dy + dz * dz


def farthest_point_sample(points, n_samples, start):
    """Indices of n_samples points, each the farthest from those already chosen."""
    pts = points.tolist()
    min_d = [float("inf")] * len(pts)
    chosen = [start]
    current = start
    while len(chosen) < n_samples:
        ref = pts[current]
        best, best_d = -1, -1.0
        for i, p in enumerate(pts):
            d = _sqdist(p, ref)
            if d < min_d[i]:
                min_d[i] = d
            if min_d[i] > best_d:
                best, best_d = i, min_d[i]
        chosen.append(best)
        current = best
    return chosen


def knn_group(points, centroids, k):
    """Relative coordinates of the k nearest points of every centroid: [n_centroids, k, 3]."""
    d = np.zeros((centroids.shape[0], points.shape[0]))
    for axis in range(3):
        diff = centroids[:, axis, None] - points[None, :, axis]
        d += diff * diff
    part = np.argpartition(d, k - 1, axis=1)[:, :k]
    order = np.argsort(np.take_along_axis(d, part, axis=1), axis=1, kind="stable")
    idx = np.take_along_axis(part, order, axis=1)
    return points[idx] - centroids[:, None, :]
