from collections import defaultdict

import numpy as np
import torch
from torch.utils.data import Dataset

from .feed import BlockKey
from .features import block_features

N_FEATURES = 8


class StopTimesBlocks(Dataset):
    """One item per (route, direction, service day) block: a (max_trips * max_stops, F) grid."""

    def __init__(self, rows, max_trips, max_stops, headway_scale_s, late_scale_s):
        self.rows = rows
        self.max_rows = max_trips * max_stops
        self.headway_scale = float(headway_scale_s)
        self.late_scale = float(late_scale_s)
        index = defaultdict(list)
        for i, row in enumerate(rows):
            index[BlockKey(row["route_id"], row["direction_id"], row["service_date"])].append(i)
        self.keys = sorted(index)
        self.index = index

    def __len__(self):
        return len(self.keys)

    def __getitem__(self, i):
        key = self.keys[i]
        rows = [self.rows[j] for j in self.index[key]]
        records = block_features(rows)

        x = torch.zeros(self.max_rows, N_FEATURES)
        y = torch.zeros(self.max_rows)
        mask = torch.zeros(self.max_rows, dtype=torch.bool)
        feats = []
        for rec in records[: self.max_rows]:
            feats.append([
                rec["dwell"] / 60.0,
                0.0 if rec["headway"] is None else rec["headway"] / self.headway_scale,
                float(rec["headway"] is not None),
                rec["time_of_day"] / 86400.0,
                float(rec["after_midnight"]),
                rec["seq"] / 32.0,
                0.0 if rec["prev_late"] is None else rec["prev_late"] / self.late_scale,
                float(rec["prev_late"] is not None),
            ])
        n = len(feats)
        x[:n] = torch.from_numpy(np.asarray(feats, dtype=np.float32).reshape(n, N_FEATURES))
        targets = [0.0 if rec["late"] is None else rec["late"] / self.late_scale for rec in records[:n]]
        y[:n] = torch.tensor(targets, dtype=torch.float32)
        mask[:n] = torch.tensor([rec["late"] is not None for rec in records[:n]])
        return {"x": x, "y": y, "mask": mask, "route": key.route_id}
