"""Synthetic knowledge graph: each relation links one entity cluster to another with a fixed shift."""
import numpy as np


def make_triples(n_entities, n_relations, n_triples, seed):
    rng = np.random.default_rng(seed)
    n_clusters = 12
    cluster = rng.integers(0, n_clusters, n_entities)
    members = [np.flatnonzero(cluster == c) for c in range(n_clusters)]
    src = rng.integers(0, n_clusters, n_relations)
    dst = rng.integers(0, n_clusters, n_relations)
    seen, triples = set(), []
    while len(triples) < n_triples:
        r = int(rng.integers(0, n_relations))
        hs, ts = members[src[r]], members[dst[r]]
        h = int(hs[rng.integers(0, len(hs))])
        t = int(ts[(np.searchsorted(ts, h) + r) % len(ts)]) if rng.random() < 0.7 else int(ts[rng.integers(0, len(ts))])
        if (h, r, t) not in seen:
            seen.add((h, r, t))
            triples.append((h, r, t))
    return triples
