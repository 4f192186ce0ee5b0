from .kinematics import delta_r


def pairwise_delta_r(xs, ys):
    n = len(xs)
    dist = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            d = delta_r(xs[i], ys[i], xs[j], ys[j])
            dist[i][j] = d
            dist[j][i] = d
    return dist


def knn(dist, k):
    """k nearest other constituents of every constituent (ties: lower index first)."""
    neighbours, edge_dr = [], []
    for i, row in enumerate(dist):
        ranked = sorted((d, j) for j, d in enumerate(row) if j != i)[:k]
        neighbours.append([j for _, j in ranked])
        edge_dr.append([d for d, _ in ranked])
    return neighbours, edge_dr
