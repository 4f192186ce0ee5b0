"""Toy C-alpha traces: helices, strands and loops joined into a compact random chain."""
import math

import numpy as np

AA = "ACDEFGHIKLMNPQRSTVWY"


def _segment(rng, kind, n, start, direction):
    pts = []
    if kind == "helix":  # 3.6 residues per turn, 1.5 A rise, radius 2.3 A
        u = direction
        a = np.cross(u, [0.0, 0.0, 1.0] if abs(u[2]) < 0.9 else [1.0, 0.0, 0.0])
        a /= np.linalg.norm(a)
        b = np.cross(u, a)
        for k in range(n):
            ang = 2 * math.pi * k / 3.6
            pts.append(start + 1.5 * k * u + 2.3 * (math.cos(ang) * a + math.sin(ang) * b))
    else:
        step = 3.3 if kind == "strand" else 3.8
        p = start.copy()
        d = direction.copy()
        for _ in range(n):
            if kind == "loop":
                d = d + rng.normal(0, 0.6, 3)
                d /= np.linalg.norm(d)
            p = p + step * d
            pts.append(p.copy())
    return pts


def make_chain(rng, length):
    pts = [np.zeros(3)]
    direction = np.array([1.0, 0.0, 0.0])
    while len(pts) < length:
        kind = ["helix", "strand", "loop"][int(rng.integers(0, 3))]
        n = int(rng.integers(4, 14))
        new = _segment(rng, kind, n, pts[-1], direction)
        pts.extend(new)
        centroid = np.mean(pts, axis=0)
        direction = centroid - pts[-1] + rng.normal(0, 4.0, 3)  # fold back toward the core
        direction /= np.linalg.norm(direction)
    coords = np.array(pts[:length])
    seq = "".join(AA[int(i)] for i in rng.integers(0, 20, length))
    return seq, coords
