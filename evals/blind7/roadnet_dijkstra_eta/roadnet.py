"""Street-grid city: arterials every few blocks, some closed residential segments, hourly congestion."""
import heapq
import math
import random

SPEED_KMH = {"arterial": 50.0, "residential": 30.0}
# travel-time multipliers by hour bucket: night, morning peak, midday, evening peak
CONGESTION = {
    "arterial": (0.9, 1.9, 1.2, 2.1),
    "residential": (0.95, 1.3, 1.05, 1.4),
}


def hour_bucket(hour):
    if hour < 6 or hour >= 21:
        return 0
    if hour < 10:
        return 1
    if hour < 16:
        return 2
    return 3


class City:
    def __init__(self, rows, cols, block_m, arterial_every, closed_fraction, rng):
        self.rows, self.cols = rows, cols
        self.coords = {r * cols + c: (r, c) for r in range(rows) for c in range(cols)}
        self.adj = {n: [] for n in self.coords}  # free-flow travel seconds
        self.edge_class = {}
        self.edge_length = {}
        for node, (r, c) in self.coords.items():
            for dr, dc in ((0, 1), (1, 0)):
                r2, c2 = r + dr, c + dc
                if r2 >= rows or c2 >= cols:
                    continue
                other = r2 * cols + c2
                on_arterial = (dr == 0 and r % arterial_every == 0) or (dc == 0 and c % arterial_every == 0)
                kind = "arterial" if on_arterial else "residential"
                if kind == "residential" and rng.random() < closed_fraction:
                    continue
                length = block_m * rng.uniform(0.8, 1.2)
                seconds = length / (SPEED_KMH[kind] / 3.6)
                for a, b in ((node, other), (other, node)):
                    self.adj[a].append((b, seconds))
                    self.edge_class[(a, b)] = kind
                    self.edge_length[(a, b)] = length

    def congested_adj(self, bucket):
        return {a: [(b, s * CONGESTION[self.edge_class[(a, b)]][bucket]) for b, s in nbrs]
                for a, nbrs in self.adj.items()}


def travel_times_from(adj, src):
    """Full single-source Dijkstra, distances only (used to simulate the observed trip times)."""
    dist = {src: 0.0}
    heap = [(0.0, src)]
    while heap:
        d, u = heapq.heappop(heap)
        if d > dist[u]:
            continue
        for v, w in adj[u]:
            nd = d + w
            if nd < dist.get(v, math.inf):
                dist[v] = nd
                heapq.heappush(heap, (nd, v))
    return dist


def make_trips(city, n_trips, n_depots, rng):
    depots = rng.sample(sorted(city.coords), n_depots)
    congested = {}
    for b in range(4):
        adj_b = city.congested_adj(b)
        for k, node in enumerate(depots):
            congested[(k, b)] = travel_times_from(adj_b, node)
    pools = [[n for n in sorted(congested[(k, 0)]) if n != node] for k, node in enumerate(depots)]
    trips = []
    for _ in range(n_trips):
        k = rng.randrange(n_depots)
        dest = rng.choice(pools[k])
        hour = rng.randrange(24)
        weekend = rng.random() < 2 / 7
        minutes = congested[(k, hour_bucket(hour))][dest] / 60.0
        minutes = minutes * (0.85 if weekend else 1.0) * math.exp(rng.gauss(0.0, 0.08)) + rng.uniform(1.0, 4.0)
        trips.append({"depot": k, "origin": depots[k], "dest": dest, "hour": hour,
                      "weekend": weekend, "log_minutes": math.log(minutes)})
    return depots, trips


def make_city(cfg, seed):
    rng = random.Random(seed)
    city = City(cfg["rows"], cfg["cols"], cfg["block_m"], cfg["arterial_every"], cfg["closed_fraction"], rng)
    return city, rng
