"""Streaming training examples: (dwell-weighted history, positive + sampled negatives)."""
import json
import math
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import torch
from torch.utils.data import IterableDataset

from .sampling import PopularityNegativeSampler


@dataclass
class NewsBatch:
    history: torch.Tensor          # [B, H] item indices, 0 = padding
    history_weight: torch.Tensor   # [B, H] dwell x recency weights
    candidates: torch.Tensor       # [B, 1 + K] positive first
    hour: torch.Tensor             # [B] hour of day of the target click

    def as_dict(self):
        return {"history": self.history, "history_weight": self.history_weight,
                "candidates": self.candidates, "hour": self.hour}


def parse_events(lines):
    events = []
    for line in lines:
        rec = json.loads(line)
        rec["ts"] = datetime.fromisoformat(rec["ts"])
        events.append(rec)
    events.sort(key=lambda e: (e["ts"], e["item"]))
    return events


class ClickStreamDataset(IterableDataset):
    """Each example is one click of a user's last session; its history is everything clicked before it."""

    def __init__(self, logs, items, history_len, n_negatives, dwell_cap, half_life_h, seed):
        self.logs = logs
        self.item_index = {item: i + 1 for i, item in enumerate(items)}  # 0 is padding
        self.history_len = history_len
        self.n_negatives = n_negatives
        self.dwell_cap = dwell_cap
        self.half_life_s = half_life_h * 3600.0
        self.seed = seed
        self.epoch = 0
        counts = dict.fromkeys(items, 0)
        self.examples = []
        for uid in sorted(logs):
            sessions = {}
            for line in logs[uid]:
                rec = json.loads(line)
                counts[rec["item"]] += 1
                sessions.setdefault(rec["session"], 0)
                sessions[rec["session"]] += 1
            last = max(sessions, key=lambda s: int(s.rsplit("-", 1)[1]))
            for pos in range(sessions[last]):
                self.examples.append((uid, pos))
        self.rng = np.random.default_rng(seed)
        self.sampler = PopularityNegativeSampler(counts, 0.75, self.rng)

    def set_epoch(self, epoch):
        self.epoch = epoch

    def dwell_weight(self, dwell, age_s):
        d = math.log1p(min(dwell, self.dwell_cap)) / math.log1p(self.dwell_cap)
        return d * math.exp(-math.log(2.0) * age_s / self.half_life_s)

    def build(self, uid, pos):
        events = parse_events(self.logs[uid])
        last_session = max(int(e["session"].rsplit("-", 1)[1]) for e in events)
        start = next(i for i, e in enumerate(events) if int(e["session"].rsplit("-", 1)[1]) == last_session)
        target = events[start + pos]
        before = events[:start + pos][-self.history_len:]
        seen = [e["item"] for e in events]
        history = [self.item_index[e["item"]] for e in before]
        weights = [self.dwell_weight(e["dwell"], (target["ts"] - e["ts"]).total_seconds()) for e in before]
        pad = self.history_len - len(history)
        negatives = self.sampler.sample(seen, self.n_negatives)
        candidates = [self.item_index[target["item"]]] + [self.item_index[n] for n in negatives]
        return [0] * pad + history, [0.0] * pad + weights, candidates, target["ts"].hour

    def __iter__(self):
        order = np.random.default_rng(self.seed + self.epoch).permutation(len(self.examples))
        for i in order:
            yield self.build(*self.examples[i])


def collate_news(samples):
    history, weight, candidates, hour = zip(*samples)
    return NewsBatch(torch.tensor(history, dtype=torch.long), torch.tensor(weight, dtype=torch.float32),
                     torch.tensor(candidates, dtype=torch.long), torch.tensor(hour, dtype=torch.long))
