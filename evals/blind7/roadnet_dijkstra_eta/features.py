"""Route features for ETA regression: free-flow shortest path, hops, turns, arterial share."""
import heapq
import math


class Router:
    """Free-flow shortest paths on the city graph (Dijkstra with early exit at the destination)."""

    def __init__(self, adj):
        self.adj = adj

    def route(self, src, dst):
        dist = {src: 0.0}
        prev = {src: None}
        heap = [(0.0, src)]
        done = set()
        while heap:
            d, u = heapq.heappop(heap)
            if u in done:
                continue
            done.add(u)
            if u == dst:
                break
            for v, w in self.adj[u]:
                nd = d + w
                if v not in dist or nd < dist[v]:
                    dist[v] = nd
                    prev[v] = u
                    heapq.heappush(heap, (nd, v))
        path = [dst]
        while prev[path[-1]] is not None:
            path.append(prev[path[-1]])
        path.reverse()
        return dist[dst], path


def route_features(city, path, seconds, hour, weekend):
    turns = 0
    arterial = 0
    heading = None
    for a, b in zip(path, path[1:]):
        (ra, ca), (rb, cb) = city.coords[a], city.coords[b]
        step = (rb - ra, cb - ca)
        if heading is not None and step != heading:
            turns += 1
        heading = step
        if city.edge_class[(a, b)] == "arterial":
            arterial += 1
    hops = len(path) - 1
    (r0, c0), (r1, c1) = city.coords[path[0]], city.coords[path[-1]]
    block_km = 0.2
    return [
        seconds / 600.0,
        hops / 50.0,
        turns / 20.0,
        arterial / max(1, hops),
        math.hypot(r1 - r0, c1 - c0) * block_km / 5.0,
        (abs(r1 - r0) + abs(c1 - c0)) * block_km / 5.0,
        math.sin(2 * math.pi * hour / 24),
        math.cos(2 * math.pi * hour / 24),
        1.0 if weekend else 0.0,
    ]
