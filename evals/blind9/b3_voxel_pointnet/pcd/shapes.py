"""Synthetic 'scans' of primitive shapes: surface samples with uneven density and sensor noise."""
import numpy as np

CLASSES = ["sphere", "box", "cylinder", "cone", "torus", "bowl"]


def _unit(v):
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def sample_shape(kind, n, rng):
    if kind == "sphere":
        p = _unit(rng.normal(size=(n, 3)))
    elif kind == "box":
        p = rng.uniform(-1, 1, size=(n, 3))
        face = rng.integers(0, 3, n)
        p[np.arange(n), face] = np.sign(rng.uniform(-1, 1, n))
        p *= np.array([1.0, 0.7, 0.5])
    elif kind == "cylinder":
        t = rng.uniform(0, 2 * np.pi, n)
        p = np.stack([0.6 * np.cos(t), 0.6 * np.sin(t), rng.uniform(-1, 1, n)], 1)
    elif kind == "cone":
        t = rng.uniform(0, 2 * np.pi, n)
        h = np.sqrt(rng.uniform(0, 1, n))
        p = np.stack([0.8 * h * np.cos(t), 0.8 * h * np.sin(t), 1 - 2 * h], 1)
    elif kind == "torus":
        u, v = rng.uniform(0, 2 * np.pi, (2, n))
        p = np.stack([(0.7 + 0.25 * np.cos(v)) * np.cos(u), (0.7 + 0.25 * np.cos(v)) * np.sin(u), 0.25 * np.sin(v)], 1)
    else:  # bowl: lower hemisphere
        p = _unit(rng.normal(size=(n, 3)))
        p[:, 2] = -np.abs(p[:, 2])
    # scanner-like density falloff along +x and a little noise
    keep = rng.uniform(0, 1, n) < 0.55 + 0.45 * (p[:, 0] - p[:, 0].min()) / np.ptp(p[:, 0])
    p = p[keep]
    return (p + rng.normal(0, 0.01, p.shape)).astype(np.float32)


def make_clouds(per_class, raw_points, seed):
    rng = np.random.default_rng(seed)
    clouds, labels = [], []
    for label, kind in enumerate(CLASSES):
        for _ in range(per_class):
            clouds.append(sample_shape(kind, int(rng.integers(raw_points[0], raw_points[1])), rng))
            labels.append(label)
    return clouds, labels
