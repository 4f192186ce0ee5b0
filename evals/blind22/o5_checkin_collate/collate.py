"""Batch variable-length check-in histories for next-POI prediction."""
import datetime as dt
import math

import torch

import geohash

N_FEATURES = 6


class CheckinCollator:
    """Pads each history (all check-ins but the last) to the batch's longest; the last check-in's
    place is the label. Per check-in features: time since the previous check-in (capped), hour of day
    (sin, cos), weekday, and the geohash cell centre relative to the city centre."""

    def __init__(self, center_lat, center_lon, span_deg=0.25, max_gap_hours=72.0, pad_id=0):
        self.center_lat = center_lat
        self.center_lon = center_lon
        self.span_deg = span_deg
        self.max_gap_hours = max_gap_hours
        self.pad_id = pad_id

    def checkin_features(self, ts, prev_ts, gh):
        gap_h = 0.0 if prev_ts is None else (ts - prev_ts) / 3600.0
        when = dt.datetime.fromtimestamp(ts, tz=dt.timezone.utc)
        lat, lon = geohash.decode(gh)
        return [
            min(gap_h, self.max_gap_hours) / self.max_gap_hours,
            math.sin(2 * math.pi * when.hour / 24),
            math.cos(2 * math.pi * when.hour / 24),
            when.weekday() / 6.0,
            (lat - self.center_lat) / self.span_deg,
            (lon - self.center_lon) / self.span_deg,
        ]

    def __call__(self, batch):
        max_len = max(len(s["place_ids"]) - 1 for s in batch)
        place_ids, features, attention_mask, labels, lengths = [], [], [], [], []
        for s in batch:
            ids = s["place_ids"][:-1]
            ts = s["timestamps"][:-1]
            ghs = s["geohashes"][:-1]
            pad = max_len - len(ids)
            place_ids.append(ids + [self.pad_id] * pad)
            rows = []
            prev = None
            for t, gh in zip(ts, ghs):
                rows.append(self.checkin_features(t, prev, gh))
                prev = t
            rows.extend([[0.0] * N_FEATURES for _ in range(pad)])
            features.append(rows)
            attention_mask.append([1] * len(ids) + [0] * pad)
            labels.append(s["place_ids"][-1])
            lengths.append(len(ids))
        return {
            "place_ids": torch.tensor(place_ids, dtype=torch.long),
            "features": torch.tensor(features, dtype=torch.float32),
            "attention_mask": torch.tensor(attention_mask, dtype=torch.bool),
            "labels": torch.tensor(labels, dtype=torch.long),
            "lengths": torch.tensor(lengths, dtype=torch.long),
        }
