"""Windows of hourly AQI sub-indices read from the stations' JSON-lines logs."""
import json
from dataclasses import dataclass

import numpy as np
import torch
from torch.utils.data import Dataset, Sampler

from .aqi import POLLUTANTS, category, rolling_mean, sub_index
from .records import parse_hour, synth_station_log, to_reporting_unit

HISTORY = 48  # hours read before the window end: 24 in the window + 24 for the 24 h means


@dataclass
class AQBatch:
    aqi: torch.Tensor        # B x T x P sub-indices / 500 (0 where missing)
    valid: torch.Tensor      # B x T x P
    category: torch.Tensor   # B x T overall category per hour (-1 if no pollutant)
    label: torch.Tensor      # B official daily category


class StationWindows(Dataset):
    """Item (station, end hour): the 24 hours before ``end`` of one station."""

    def __init__(self, n_stations, n_hours, window, seed):
        rng = np.random.default_rng(seed)
        self.window = window
        self.n_hours = n_hours
        self.logs, self.daily = [], []
        for s in range(n_stations):
            lines, daily = synth_station_log(rng, f"AQ-{s:03d}", n_hours)
            self.logs.append(lines)
            self.daily.append(daily)
        self.ends = list(range(HISTORY, n_hours + 1))

    def __len__(self):
        return len(self.logs) * len(self.ends)

    def read_hours(self, station, lo, end):
        """Hourly values in [lo, end) from the log; the log is read up to the first reading
        at or after ``end`` (the uploader's cut-off), later duplicates overriding earlier ones."""
        table = {}
        for line in self.logs[station]:
            rec = json.loads(line)
            hour = parse_hour(rec["ts"])
            if hour >= end:
                break
            if hour < lo or rec.get("qc") == "invalid" or rec["value"] is None:
                continue
            pol = rec["pollutant"]
            table[(hour, pol)] = to_reporting_unit(pol, rec["value"], rec["unit"])
        return table

    def __getitem__(self, idx):
        station, k = divmod(idx, len(self.ends))
        end = self.ends[k]
        table = self.read_hours(station, end - HISTORY, end)
        aqi = np.zeros((self.window, len(POLLUTANTS)), dtype=np.float32)
        valid = np.zeros((self.window, len(POLLUTANTS)), dtype=np.float32)
        cats = np.full(self.window, -1, dtype=np.int64)
        for t, hour in enumerate(range(end - self.window, end)):
            indices = {pol: sub_index(pol, rolling_mean(table, pol, hour)) for pol in POLLUTANTS}
            for p, pol in enumerate(POLLUTANTS):
                if indices[pol] is not None:
                    aqi[t, p] = indices[pol] / 500.0
                    valid[t, p] = 1.0
            present = [v for v in indices.values() if v is not None]
            cats[t] = category(max(present)) if present else -1
        return aqi, valid, cats, self.daily[station][(end - 1) // 24]


class StationBatchSampler(Sampler):
    """Random (station, end) windows, ``batches_per_epoch`` batches per epoch."""

    def __init__(self, n_items, batch_size, batches_per_epoch, generator):
        self.n_items = n_items
        self.batch_size = batch_size
        self.batches_per_epoch = batches_per_epoch
        self.generator = generator

    def __len__(self):
        return self.batches_per_epoch

    def __iter__(self):
        for _ in range(self.batches_per_epoch):
            yield torch.randint(self.n_items, (self.batch_size,), generator=self.generator).tolist()


def collate_windows(items):
    aqi, valid, cats, labels = zip(*items)
    return AQBatch(torch.from_numpy(np.stack(aqi)), torch.from_numpy(np.stack(valid)),
                   torch.from_numpy(np.stack(cats)), torch.tensor(labels, dtype=torch.long))
