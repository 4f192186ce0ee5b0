"""Flight-leg dataset: delay features with the delay carried in from the aircraft's previous leg."""
import csv
import io
from datetime import datetime, timedelta

import torch
from torch.utils.data import Dataset

FMT = "%Y-%m-%d %H:%M"


def to_utc(local, offset_min):
    """Local wall-clock string + the record's UTC offset (minutes east of UTC) -> naive UTC."""
    return datetime.strptime(local, FMT) - timedelta(minutes=int(offset_min))


def minutes_between(later, earlier):
    return (later - earlier).total_seconds() / 60.0


class FlightLegDataset(Dataset):
    def __init__(self, csv_text, airports, late_threshold_min=15, minutes_scale=60.0):
        self.rows = list(csv.DictReader(io.StringIO(csv_text)))
        self.airport_index = {a: i for i, a in enumerate(airports)}
        self.late_threshold = late_threshold_min
        self.scale = minutes_scale

    def __len__(self):
        return len(self.rows)

    def previous_leg(self, row):
        """The same aircraft's leg scheduled right before this one (None for its first leg)."""
        legs = [r for r in self.rows if r["tail"] == row["tail"]]
        legs.sort(key=lambda r: to_utc(r["sched_dep"], r["dep_utc_offset"]))
        pos = next(i for i, r in enumerate(legs) if r is row)
        return legs[pos - 1] if pos > 0 else None

    def __getitem__(self, idx):
        row = self.rows[idx]
        sched_dep = to_utc(row["sched_dep"], row["dep_utc_offset"])
        sched_arr = to_utc(row["sched_arr"], row["arr_utc_offset"])
        actual_dep = to_utc(row["actual_dep"], row["dep_utc_offset"])
        dep_delay = minutes_between(actual_dep, sched_dep)

        prev = self.previous_leg(row)
        if prev is not None:
            prev_arr_sched = to_utc(prev["sched_arr"], prev["arr_utc_offset"])
            prev_arr_actual = to_utc(prev["actual_arr"], prev["arr_utc_offset"])
            carried = max(0.0, minutes_between(prev_arr_actual, prev_arr_sched))
            slack = minutes_between(sched_dep, prev_arr_actual)
            has_prev = 1.0
        else:
            carried, slack, has_prev = 0.0, 240.0, 0.0

        local_dep = datetime.strptime(row["sched_dep"], FMT)
        numeric = [
            minutes_between(sched_arr, sched_dep) / self.scale,
            carried / self.scale,
            slack / self.scale,
            has_prev,
            local_dep.hour / 24.0 + local_dep.minute / 1440.0,
            local_dep.weekday() / 6.0,
            int(row["dep_utc_offset"]) / 600.0,
            (int(row["arr_utc_offset"]) - int(row["dep_utc_offset"])) / 600.0,
        ]
        return {
            "numeric": torch.tensor(numeric, dtype=torch.float32),
            "origin": self.airport_index[row["origin"]],
            "dest": self.airport_index[row["dest"]],
            "late": int(dep_delay >= self.late_threshold),
        }
