"""A synthetic city: perturbed grid of intersections, arterials, dual carriageways (parallel edges)."""
import math

import numpy as np

ROAD_CLASSES = ("residential", "tertiary", "secondary", "primary", "motorway_link")


class RoadNetwork:
    """Undirected multigraph; `adj[u]` lists (v, edge_id) in insertion order."""

    def __init__(self, grid, rng):
        n = grid * grid
        self.xy = np.stack(np.meshgrid(np.arange(grid), np.arange(grid), indexing="ij"), -1).reshape(n, 2)
        self.xy = self.xy * 120.0 + rng.normal(0.0, 18.0, size=(n, 2))
        self.signal = rng.random(n) < 0.25
        self.elevation = np.cumsum(rng.normal(0, 0.4, size=n)) % 40.0
        self.edges = []          # (u, v, road_class, length_m, speed_kmh)
        self.adj = [[] for _ in range(n)]
        for i in range(grid):
            for j in range(grid):
                u = i * grid + j
                for di, dj in ((0, 1), (1, 0)):
                    if i + di >= grid or j + dj >= grid or rng.random() < 0.12:
                        continue
                    v = (i + di) * grid + (j + dj)
                    arterial = (i % 8 == 0 and di == 0) or (j % 8 == 0 and dj == 0)
                    cls = 3 if arterial else int(rng.integers(0, 3))
                    self._add(u, v, cls)
                    if arterial and rng.random() < 0.5:      # dual carriageway: second, parallel edge
                        self._add(u, v, cls)
                if i + 1 < grid and j + 1 < grid and rng.random() < 0.04:
                    self._add(u, (i + 1) * grid + j + 1, 4)
        self.n_nodes = n
        speeds = np.array([30.0, 40.0, 50.0, 70.0, 60.0])
        cls = np.array([e[2] for e in self.edges])
        lengths = np.array([e[3] for e in self.edges])
        # congestion target: busier near arterials and signals, lower on long fast links
        load = np.zeros(n)
        for (u, v, c, length, _) in self.edges:
            load[u] += (c + 1) / math.sqrt(length)
            load[v] += (c + 1) / math.sqrt(length)
        self.congestion = np.tanh(0.15 * load + 0.6 * self.signal + rng.normal(0, 0.1, size=n))
        self.edge_speed = speeds[cls]
        self.edge_length = lengths

    def _add(self, u, v, cls):
        length = float(np.hypot(*(self.xy[u] - self.xy[v])))
        eid = len(self.edges)
        self.edges.append((u, v, cls, length, (30.0, 40.0, 50.0, 70.0, 60.0)[cls]))
        self.adj[u].append((v, eid))
        self.adj[v].append((u, eid))
