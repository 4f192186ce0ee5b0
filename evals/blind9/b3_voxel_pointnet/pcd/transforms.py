import math

import numpy as np


def random_rotate_scale(points, rng, scale_range, jitter):
    """Rotation about the up axis, anisotropic scaling and Gaussian jitter (float64)."""
    theta = rng.uniform(0, 2 * np.pi)
    c, s = np.cos(theta), np.sin(theta)
    rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    scale = rng.uniform(scale_range[0], scale_range[1], size=3)
    out = (points.astype(np.float64) @ rot.T) * scale
    return out + rng.normal(0.0, jitter, size=out.shape)


def voxel_downsample(points, voxel_size):
    """Open3D-style voxel grid filter: one centroid per occupied voxel, voxels in sorted key order."""
    buckets = {}
    for x, y, z in points.tolist():
        key = (math.floor(x / voxel_size), math.floor(y / voxel_size), math.floor(z / voxel_size))
        acc = buckets.get(key)
        if acc is None:
            buckets[key] = [x, y, z, 1]
        else:
            acc[0] += x
            acc[1] += y
            acc[2] += z
            acc[3] += 1
    centroids = []
    for key in sorted(buckets):
        sx, sy, sz, n = buckets[key]
        centroids.append([sx / n, sy / n, sz / n])
    return np.array(centroids, dtype=np.float64)


def fixed_size(points, num_points, rng):
    """Random subset without replacement, or every point plus random repeats."""
    m = len(points)
    if m >= num_points:
        idx = np.sort(rng.choice(m, num_points, replace=False))
    else:
        idx = np.concatenate([np.arange(m), rng.choice(m, num_points - m, replace=True)])
    return points[idx]


def normalize_unit_sphere(points):
    centered = points - points.mean(axis=0)
    return centered / np.max(np.sqrt((centered ** 2).sum(axis=1)))
