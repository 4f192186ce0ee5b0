"""Toy jets: light quark, gluon, W (2 prongs) and top (3 prongs) with (pt, eta, phi, charge)."""
import math

import numpy as np

CLASSES = ("q", "g", "W", "t")


def make_jets(cfg, seed):
    rng = np.random.default_rng(seed)
    jets = []
    for _ in range(cfg.n_jets):
        label = int(rng.integers(len(CLASSES)))
        n = int(rng.integers(cfg.min_constituents, cfg.max_constituents + 1))
        if label == 1:
            n = min(cfg.max_constituents, n + 6)
        prongs = [1, 1, 2, 3][label]
        spread = [0.10, 0.16, 0.07, 0.08][label]
        jet_eta = rng.uniform(-2.0, 2.0)
        jet_phi = rng.uniform(-math.pi, math.pi)
        centres = rng.normal(0.0, 0.25 if prongs > 1 else 0.0, size=(prongs, 2))
        which = rng.integers(prongs, size=n)
        eta = jet_eta + centres[which, 0] + rng.normal(0.0, spread, n)
        phi = jet_phi + centres[which, 1] + rng.normal(0.0, spread, n)
        phi = (phi + math.pi) % (2 * math.pi) - math.pi
        pt = rng.pareto(2.0, n) * 4.0 + 1.0
        charge = rng.choice([-1.0, 0.0, 1.0], size=n, p=[0.3, 0.4, 0.3])
        # detector granularity: tracks/towers are stored with 3 decimals in eta, phi
        jets.append({
            "pt": np.round(pt, 2).astype(np.float32),
            "eta": np.round(eta, 3).astype(np.float32),
            "phi": np.round(phi, 3).astype(np.float32),
            "charge": charge.astype(np.float32),
            "label": label,
        })
    return jets
