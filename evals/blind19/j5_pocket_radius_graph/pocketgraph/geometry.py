"""Neighbour searches on small point sets."""
import math


def sq_dist(a, b):
    dx = a[0] - b[0]
    dy = a[1] - b[1]
    dz = a[2] - b[2]
    return dx * dx + dy * dy + dz * dz


def atoms_near(points, query, radius):
    """Indices of `points` within `radius` of any point of `query` (in index order)."""
    r2 = radius * radius
    q = query.tolist()
    return [i for i, p in enumerate(points.tolist()) if any(sq_dist(p, c) <= r2 for c in q)]


def radius_graph(pos, cutoff):
    """Directed edges (i -> j, i != j) between points closer than `cutoff`, with their lengths."""
    c2 = cutoff * cutoff
    pts = pos.tolist()
    src, dst, dist = [], [], []
    for i, p in enumerate(pts):
        for j, q in enumerate(pts):
            if i == j:
                continue
            d2 = sq_dist(p, q)
            if d2 <= c2:
                src.append(i)
                dst.append(j)
                dist.append(math.sqrt(d2))
    return src, dst, dist
