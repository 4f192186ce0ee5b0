"""Synthetic stick figures: 14 joints, limbs drawn as anti-aliased-ish lines on a dark canvas."""
import numpy as np

JOINTS = [
    "head", "neck",
    "l_shoulder", "r_shoulder", "l_elbow", "r_elbow", "l_wrist", "r_wrist",
    "l_hip", "r_hip", "l_knee", "r_knee", "l_ankle", "r_ankle",
]
# pairs swapped by a horizontal flip
FLIP_PAIRS = [(2, 3), (4, 5), (6, 7), (8, 9), (10, 11), (12, 13)]
LIMBS = [
    (0, 1), (1, 2), (1, 3), (2, 4), (3, 5), (4, 6), (5, 7),
    (1, 8), (1, 9), (8, 10), (9, 11), (10, 12), (11, 13), (8, 9),
]


def _pose(rng, size):
    """Joint coordinates (x, y) in pixels for one random figure."""
    cx = rng.uniform(0.35, 0.65) * size
    top = rng.uniform(0.08, 0.2) * size
    scale = rng.uniform(0.75, 1.0) * size
    neck = np.array([cx + rng.normal(0, 1.0), top + 0.12 * scale])
    head = neck + [rng.normal(0, 1.5), -0.1 * scale]
    pts = {0: head, 1: neck}
    shoulder_w = 0.13 * scale
    hip_y = neck[1] + 0.36 * scale
    for side, sign in ((2, -1), (3, 1)):
        pts[side] = neck + [sign * shoulder_w, 0.03 * scale]
    for side, sign in ((8, -1), (9, 1)):
        pts[side] = np.array([neck[0] + sign * 0.08 * scale + rng.normal(0, 0.8), hip_y])
    for (parent, child, length) in ((2, 4, 0.17), (3, 5, 0.17), (4, 6, 0.16), (5, 7, 0.16),
                                    (8, 10, 0.22), (9, 11, 0.22), (10, 12, 0.2), (11, 13, 0.2)):
        ang = rng.uniform(-1.1, 1.1) + np.pi / 2
        pts[child] = pts[parent] + length * scale * np.array([np.cos(ang), np.sin(ang)])
    coords = np.stack([pts[j] for j in range(len(JOINTS))])
    return np.clip(coords, 0, size - 1)


def _draw_line(canvas, p, q, value):
    n = int(max(abs(q[0] - p[0]), abs(q[1] - p[1])) * 2) + 2
    t = np.linspace(0.0, 1.0, n)
    xs = np.round(p[0] + (q[0] - p[0]) * t).astype(int)
    ys = np.round(p[1] + (q[1] - p[1]) * t).astype(int)
    canvas[ys, xs] = np.maximum(canvas[ys, xs], value)


def make_figures(n, size, seed):
    """Return (images uint8 [n, size, size], keypoints float64 [n, 14, 2])."""
    rng = np.random.default_rng(seed)
    images = np.zeros((n, size, size), dtype=np.uint8)
    keypoints = np.zeros((n, len(JOINTS), 2), dtype=np.float64)
    for i in range(n):
        kp = _pose(rng, size)
        canvas = rng.integers(0, 40, size=(size, size)).astype(np.uint8)
        for a, b in LIMBS:
            _draw_line(canvas, kp[a], kp[b], 200 + (a * 7 + b * 3) % 55)
        for j in range(len(JOINTS)):
            x, y = int(round(kp[j, 0])), int(round(kp[j, 1]))
            canvas[max(0, y - 1):y + 2, max(0, x - 1):x + 2] = 255
        images[i] = canvas
        keypoints[i] = kp
    return images, keypoints
