"""Synthetic click logs, one JSON object per event, as a tracking pipeline would export them."""
import json
from datetime import datetime, timedelta

import numpy as np


def synth_click_logs(n_users, n_items, seed, min_events=150, max_events=400):
    """Returns ({user_id: [json line, ...]}, item catalogue list). Events arrive in log order, not time order."""
    rng = np.random.default_rng(seed)
    items = [f"N{10000 + 7 * i}" for i in range(n_items)]
    popularity = 1.0 / np.arange(1, n_items + 1) ** 0.9
    popularity /= popularity.sum()
    epoch0 = datetime(2026, 10, 1, 6, 0, 0)
    logs = {}
    for u in range(n_users):
        uid = f"U{u:05d}"
        n = int(rng.integers(min_events, max_events + 1))
        n_sessions = int(rng.integers(3, 9))
        cuts = np.sort(rng.choice(np.arange(1, n), size=n_sessions - 1, replace=False))
        sizes = np.diff(np.concatenate([[0], cuts, [n]]))
        topic = int(rng.integers(0, 20))
        t = epoch0 + timedelta(minutes=float(rng.uniform(0, 60 * 24 * 20)))
        on_topic = rng.random(n) < 0.4
        topical = np.minimum(rng.integers(0, n_items // 20, size=n) * 20 + topic, n_items - 1)
        popular = rng.choice(n_items, size=n, p=popularity)
        picks = np.where(on_topic, topical, popular).tolist()
        dwells = np.round(rng.lognormal(3.2, 1.0, size=n), 1).tolist()
        gaps = rng.uniform(5, 90, size=n).tolist()
        referrers = rng.choice(["home", "push", "search", "social"], size=n).tolist()
        events = []
        k = 0
        for s, size in enumerate(sizes):
            for _ in range(size):
                events.append({"user": uid, "item": items[picks[k]], "ts": t.isoformat(timespec="seconds"),
                               "dwell": dwells[k], "session": f"{uid}-{s}", "referrer": referrers[k]})
                t += timedelta(seconds=dwells[k] + gaps[k])
                k += 1
            t += timedelta(hours=float(rng.uniform(6, 72)))
        order = rng.permutation(len(events))  # the exporter writes shards out of order
        logs[uid] = [json.dumps(events[i], separators=(",", ":")) for i in order]
    return logs, items
