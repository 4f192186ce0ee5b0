"""Surface point clouds of five primitives with random proportions."""
import numpy as np

CLASSES = ["sphere", "box", "cylinder", "cone", "torus"]


def _unit(rng, n):
    v = rng.normal(size=(n, 3))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _sample(kind, rng, n):
    if kind == 0:
        return _unit(rng, n) * rng.uniform(0.7, 1.0, 3)
    if kind == 1:
        half = rng.uniform(0.4, 1.0, 3)
        p = rng.uniform(-1, 1, (n, 3))
        face = rng.integers(0, 3, n)
        p[np.arange(n), face] = np.sign(p[np.arange(n), face])
        return p * half
    if kind == 2:
        r, h = rng.uniform(0.4, 0.8), rng.uniform(0.6, 1.0)
        t = rng.uniform(0, 2 * np.pi, n)
        return np.stack([r * np.cos(t), r * np.sin(t), rng.uniform(-h, h, n)], 1)
    if kind == 3:
        r, h = rng.uniform(0.5, 0.9), rng.uniform(0.8, 1.2)
        t = rng.uniform(0, 2 * np.pi, n)
        s = np.sqrt(rng.uniform(0, 1, n))
        return np.stack([r * s * np.cos(t), r * s * np.sin(t), h * (1 - s) - h / 2], 1)
    big, small = rng.uniform(0.6, 0.8), rng.uniform(0.15, 0.3)
    u, v = rng.uniform(0, 2 * np.pi, (2, n))
    return np.stack([(big + small * np.cos(v)) * np.cos(u), (big + small * np.cos(v)) * np.sin(u), small * np.sin(v)], 1)


def make_shapes(n_shapes, n_points, seed):
    rng = np.random.default_rng(seed)
    clouds = np.empty((n_shapes, n_points, 3), dtype=np.float64)
    labels = np.empty(n_shapes, dtype=np.int64)
    for i in range(n_shapes):
        kind = i % len(CLASSES)
        pts = _sample(kind, rng, n_points)
        # random tilt so that the z axis is not a give-away
        a = rng.uniform(-0.4, 0.4)
        c, s = np.cos(a), np.sin(a)
        pts = pts @ np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
        clouds[i] = pts
        labels[i] = kind
    return clouds, labels
