"""Windows over the feeds: 24 h of slot features -> occupancy of the next hour."""
import json

import numpy as np
import torch

DAY = 86400


def parse_events(text):
    events = []
    for line in text.splitlines():
        if not line.strip():
            continue
        events.append(json.loads(line))
    return events


def occupancy_intervals(events, t_from, t_to):
    """Pair arrive/depart detections into [start, end) stays clipped to [t_from, t_to)."""
    stays = []
    start = None
    first = True
    for e in events:
        if e["type"] not in ("arrive", "depart"):
            continue
        if e["type"] == "arrive":
            if start is None:
                start = e["ts"]
        else:
            if start is None and first:
                start = t_from  # the car was already there when the stream began
            if start is not None:
                stays.append((max(start, t_from), min(e["ts"], t_to)))
                start = None
        first = False
    if start is not None:
        stays.append((max(start, t_from), t_to))
    return [(a, b) for a, b in stays if b > a]


class BayWindowDataset:
    def __init__(self, feeds, start_epoch_s, history_hours, horizon_minutes, slot_minutes, hours):
        self.feeds = feeds
        self.t0 = start_epoch_s
        self.slot = slot_minutes * 60
        self.n_hist = history_hours * 3600 // self.slot
        self.n_next = horizon_minutes * 60 // self.slot
        self.index = []
        for bay in sorted(feeds):
            for d in range(1, len(feeds[bay])):
                for h in hours:
                    self.index.append((bay, d, h))

    def __len__(self):
        return len(self.index)

    def features(self, bay, d, h):
        days = self.feeds[bay]
        events = parse_events(days[d - 1]) + parse_events(days[d])
        events.sort(key=lambda e: e["ts"])
        t_end = self.t0 + d * DAY + h * 3600
        t_start = t_end - self.n_hist * self.slot
        t_stop = t_end + self.n_next * self.slot
        stays = occupancy_intervals(events, self.t0 + (d - 1) * DAY, t_stop)
        n = self.n_hist + self.n_next
        occ = []
        hb = []
        for k in range(n):
            a = t_start + k * self.slot
            b = a + self.slot
            covered = 0
            for s, e in stays:
                lo = s if s > a else a
                hi = e if e < b else b
                if hi > lo:
                    covered += hi - lo
            occ.append(covered / self.slot)
            hb.append(sum(1 for ev in events if ev["type"] == "heartbeat" and a <= ev["ts"] < b))
        battery = [ev["payload"]["mv"] for ev in events if ev["type"] == "battery" and ev["ts"] < t_end]
        mv = battery[-1] if battery else 3300
        rssi = [ev["payload"]["rssi"] for ev in events if ev["type"] == "heartbeat" and t_start <= ev["ts"] < t_end]
        mean_rssi = sum(rssi) / len(rssi) if rssi else -90.0
        return occ, hb, mv, mean_rssi

    def __getitem__(self, i):
        bay, d, h = self.index[i]
        occ, hb, mv, mean_rssi = self.features(bay, d, h)
        hist = torch.tensor(occ[: self.n_hist], dtype=torch.float32)
        beats = torch.tensor(hb[: self.n_hist], dtype=torch.float32)
        ctx = torch.zeros(24 + 7 + 2)
        ctx[h] = 1.0
        ctx[24 + (d % 7)] = 1.0
        ctx[31] = (mv - 3300) / 300.0
        ctx[32] = (mean_rssi + 90.0) / 20.0
        target = torch.tensor(occ[self.n_hist:], dtype=torch.float32)
        return {"history": hist, "heartbeats": beats, "context": ctx, "target": target}


class BatchIterator:
    """A hand-written loader: shuffled index order per epoch, stacked dict batches."""

    def __init__(self, dataset, batch_size, shuffle=True, drop_last=True, seed=0):
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        n = len(self.dataset) // self.batch_size
        return n if self.drop_last or len(self.dataset) % self.batch_size == 0 else n + 1

    def __iter__(self):
        order = self.rng.permutation(len(self.dataset)) if self.shuffle else np.arange(len(self.dataset))
        for b in range(len(self)):
            idx = order[b * self.batch_size:(b + 1) * self.batch_size]
            items = [self.dataset[int(i)] for i in idx]
            yield {k: torch.stack([it[k] for it in items]) for k in items[0]}
