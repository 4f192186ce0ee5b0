import bisect
import math
import random

import numpy as np
import torch
from torch.utils.data import Dataset


class Catalog:
    def __init__(self, n_tracks, n_artists, seed):
        rng = random.Random(seed)
        self.artist_of = {t: rng.randrange(1, n_artists) for t in range(1, n_tracks)}
        plays = {t: int(rng.paretovariate(1.2) * 10) for t in range(1, n_tracks)}
        self.log_pop = {t: math.log1p(c) for t, c in plays.items()}
        self.n_tracks, self.n_artists = n_tracks, n_artists


def simulate_sessions(catalog, cfg, seed):
    rng = random.Random(seed)
    tracks = list(range(1, catalog.n_tracks))
    sessions = []
    for _ in range(cfg["n_sessions"]):
        n = rng.randint(cfg["min_len"], cfg["max_len"])
        favourites = rng.sample(tracks, 12)
        items, times, t = [], [], 0
        for _ in range(n):
            items.append(rng.choice(favourites) if rng.random() < 0.45 else rng.choice(tracks))
            t += int(rng.expovariate(1 / 90)) + 1
            times.append(t)
        sessions.append((items, times))
    return sessions


class SkipDataset(Dataset):
    """Predict whether the candidate is the track actually played next (1) or a random one (0)."""

    def __init__(self, catalog, sessions, cfg, seed):
        self.catalog, self.sessions = catalog, sessions
        self.L = cfg["history"]
        self.gap_edges = list(cfg["gap_edges"])
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.sessions)

    def _track_features(self, hist, times):
        cat = self.catalog
        feats = {"items": [], "artists": [], "gaps": [], "repeats": [], "pop": []}
        prev_t = None
        for i, item in enumerate(hist):
            feats["items"].append(item)
            feats["artists"].append(cat.artist_of[item])
            gap = 0 if prev_t is None else times[i] - prev_t
            feats["gaps"].append(bisect.bisect_right(self.gap_edges, gap))
            feats["repeats"].append(min(hist[:i + 1].count(item), 7))
            feats["pop"].append(cat.log_pop[item])
            prev_t = times[i]
        return feats

    def __getitem__(self, idx):
        items, times = self.sessions[idx]
        end = len(items) - 1
        hist, htimes = items[max(0, end - self.L):end], times[max(0, end - self.L):end]
        feats = self._track_features(hist, htimes)
        pad = self.L - len(hist)
        history = {}
        for key, vals in feats.items():
            dtype = torch.float32 if key == "pop" else torch.long
            history[key] = torch.tensor(vals + [0] * pad, dtype=dtype)
        history["mask"] = torch.tensor([1.0] * len(hist) + [0.0] * pad)
        if self.rng.random() < 0.5:
            cand, label = items[end], 1.0
        else:
            cand, label = int(self.rng.integers(1, self.catalog.n_tracks)), 0.0
        candidate = {"item": torch.tensor(cand), "artist": torch.tensor(self.catalog.artist_of[cand]),
                     "pop": torch.tensor(self.catalog.log_pop[cand], dtype=torch.float32)}
        return {"history": history, "candidate": candidate, "label": torch.tensor(label)}
