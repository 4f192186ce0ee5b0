"""A synthetic implicit-feedback log (user, item, unix-ish timestamp), MovieLens-like.

Users have 2-3 favourite genres and move between them in sessions; item popularity is Zipfian
inside a genre; about 10% of events are bulk imports that share the previous timestamp.
The log is a column store (dict of numpy arrays) sorted by time, users interleaved.
"""
import numpy as np


def make_log(n_users, n_items, n_genres, mean_history, seed):
    rng = np.random.default_rng(seed)
    per_genre = n_items // n_genres
    pop = 1.0 / np.arange(1, per_genre + 1) ** 0.9
    pop /= pop.sum()
    users, items, stamps = [], [], []
    for u in range(n_users):
        n = int(np.clip(rng.lognormal(np.log(mean_history) - 0.5, 1.0), 5, 600))
        prefs = rng.choice(n_genres, size=3, replace=False)
        stay = rng.random(n) < 0.7
        stay[0] = False
        picks = prefs[rng.integers(0, 3, size=n)]
        session_start = np.maximum.accumulate(np.where(stay, 0, np.arange(n)))
        genre = picks[session_start]
        rank = rng.choice(per_genre, size=n, p=pop)
        gaps = rng.exponential(3600.0, size=n).astype(np.int64)
        gaps[rng.random(n) < 0.1] = 0
        users.append(np.full(n, u, dtype=np.int64))
        items.append((genre * per_genre + rank + 1).astype(np.int64))  # ids from 1, 0 = padding
        stamps.append(int(rng.integers(0, 20_000_000)) + np.cumsum(gaps))
    user, item, ts = np.concatenate(users), np.concatenate(items), np.concatenate(stamps)
    order = np.argsort(ts, kind="stable")
    return {"user": user[order], "item": item[order], "ts": ts[order]}
