"""Sessionisation of a user's raw event dicts and the next-item dataset built on it."""
import datetime as dt
import json
import math
from dataclasses import dataclass, fields

import numpy as np
import torch
from torch.utils.data import Dataset

from clicklog import EVENT_TYPES

TYPE_ID = {t: i + 1 for i, t in enumerate(EVENT_TYPES)}  # 0 = padding


def parse_ts(stamp):
    return dt.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=dt.timezone.utc).timestamp()


def sessionize(events, gap_seconds, dwell_cap):
    """Sort and de-duplicate a user's events, split them into sessions at inactivity gaps and
    annotate each event with its dwell time (seconds until the next event of the session)."""
    seen = set()
    rows = []
    for ev in events:
        key = (ev["ts"], ev["type"], ev["item_id"])
        if key in seen:
            continue
        seen.add(key)
        rows.append((parse_ts(ev["ts"]), TYPE_ID[ev["type"]], int(ev["item_id"].split("-")[1]) + 1))
    rows.sort()
    sessions = []
    current = []
    last_t = None
    for t, etype, item in rows:
        if last_t is not None and t - last_t > gap_seconds:
            sessions.append(current)
            current = []
        current.append([t, etype, item, 0.0])
        last_t = t
    if current:
        sessions.append(current)
    for sess in sessions:
        for a, b in zip(sess, sess[1:]):
            a[3] = min(b[0] - a[0], dwell_cap)
    return sessions


@dataclass
class SessionBatch:
    items: torch.Tensor      # [B, L] history item ids (0 = pad), most recent last
    types: torch.Tensor      # [B, L] event type ids
    dwell: torch.Tensor      # [B, L] log1p(dwell seconds)
    mask: torch.Tensor       # [B, L] True where there is an event
    target: torch.Tensor     # [B] next item
    negatives: torch.Tensor  # [B, K] sampled negatives

    def as_dict(self):
        return {f.name: getattr(self, f.name) for f in fields(self)}


def collate_sessions(samples):
    return SessionBatch(*(torch.stack([s[k] for s in samples])
                          for k in ("items", "types", "dwell", "mask", "target", "negatives")))


class NextItemDataset(Dataset):
    """One sample per (user, event) with at least one earlier event in the same session.

    The export lines are kept as parsed dicts; the user's timeline is sessionised when a
    sample is drawn and the history is the session up to (excluding) the target event.
    """

    def __init__(self, lines, num_items, gap_seconds, max_history, dwell_cap,
                 num_negatives, popularity_power, seed):
        self.users = [json.loads(line) for line in lines]
        self.gap_seconds = gap_seconds
        self.max_history = max_history
        self.dwell_cap = dwell_cap
        self.num_negatives = num_negatives
        self.index = []  # (user position, session number, position in session)
        counts = np.zeros(num_items + 1)
        for u, user in enumerate(self.users):
            for s, sess in enumerate(sessionize(user["events"], gap_seconds, dwell_cap)):
                for p in range(1, len(sess)):
                    self.index.append((u, s, p))
                for row in sess:
                    counts[row[2]] += 1
        probs = counts ** popularity_power
        probs[0] = 0.0
        self.cdf = np.cumsum(probs / probs.sum())
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.index)

    def sample_negatives(self, exclude):
        """Popularity-smoothed negatives, none of them in the session so far."""
        out = []
        while len(out) < self.num_negatives:
            draws = self.rng.random(self.num_negatives)
            for item in np.searchsorted(self.cdf, draws, side="right").tolist():
                if item not in exclude and len(out) < self.num_negatives:
                    out.append(item)
        return out

    def __getitem__(self, i):
        u, s, p = self.index[i]
        sess = sessionize(self.users[u]["events"], self.gap_seconds, self.dwell_cap)[s]
        history = sess[max(0, p - self.max_history):p]
        target = sess[p][2]
        L = self.max_history
        pad = L - len(history)
        items = [0] * pad + [row[2] for row in history]
        types = [0] * pad + [row[1] for row in history]
        dwell = [0.0] * pad + [math.log1p(row[3]) for row in history]
        exclude = {row[2] for row in sess[:p + 1]}
        negatives = self.sample_negatives(exclude)
        return {
            "items": torch.tensor(items), "types": torch.tensor(types),
            "dwell": torch.tensor(dwell, dtype=torch.float32),
            "mask": torch.tensor([k >= pad for k in range(L)]),
            "target": torch.tensor(target), "negatives": torch.tensor(negatives),
        }
