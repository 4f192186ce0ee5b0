"""Daily features from half-hourly readings: DST-aware day slots, carry-forward imputation, tariff bands."""
import math
import random
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

import torch
from torch.utils.data import Dataset, Sampler

import ukclock
from exports import parse_export

SLOT = 1800
BANDS = ("offpeak", "standard", "peak")
N_FEATURES = 10


def tariff_for(history, local_date):
    current = history[0]
    for entry in history:
        if entry.effective <= local_date:
            current = entry
    return current


class HouseholdSeries:
    def __init__(self, export):
        self.name = export["household"]
        self.tariffs = export["tariffs"]
        self.first_day = export["first_day"]
        self.n_days = export["n_days"]
        self.readings = parse_export(export["csv"])
        valid = [v for v in self.readings.values() if v is not None]
        self.fallback = sum(valid) / len(valid)

    def day(self, i):
        return self.first_day + timedelta(days=i)

    def daily_rows(self, start, n_days, scale):
        """Per local day: [kWh, offpeak kWh, standard kWh, peak kWh, cost p, max slot, imputed, slots,
        weekday, standing charge]. Missing readings carry the last seen value forward (in the window)."""
        rows, last = [], None
        for i in range(start, start + n_days):
            d = self.day(i)
            t = ukclock.local_midnight_utc(d)
            t_end = ukclock.local_midnight_utc(d + timedelta(days=1))
            tariff = tariff_for(self.tariffs, d)
            total = cost = peak_slot = 0.0
            per_band = dict.fromkeys(BANDS, 0.0)
            imputed = slots = 0
            while t < t_end:
                value = self.readings.get(int(t.timestamp()))
                if value is None:
                    value = last if last is not None else self.fallback
                    imputed += 1
                else:
                    last = value
                kwh = value * scale
                band, rate = tariff.band_at(ukclock.to_local(t))
                total += kwh
                per_band[band] += kwh
                cost += kwh * rate
                peak_slot = max(peak_slot, kwh)
                slots += 1
                t += timedelta(seconds=SLOT)
            rows.append([total, per_band["offpeak"], per_band["standard"], per_band["peak"],
                         cost / 100.0, peak_slot, float(imputed), float(slots), float(d.weekday()),
                         tariff.standing_charge / 100.0])
        return rows


@dataclass
class MeterBatch:
    features: torch.Tensor   # [B, days, N_FEATURES]
    target: torch.Tensor     # [B] log1p of next day's kWh
    household: list


class MeterWindows(Dataset):
    """Items are keyed by (household index, first day); each is a window plus the next day as target."""

    def __init__(self, exports, window_days, scale_range, seed):
        self.series = [HouseholdSeries(e) for e in exports]
        self.window_days = window_days
        self.scale_range = scale_range
        self.rng = random.Random(seed)

    def __len__(self):
        return sum(s.n_days - self.window_days for s in self.series)

    def __getitem__(self, key):
        hh, start = key
        series = self.series[hh]
        scale = self.rng.uniform(*self.scale_range)
        rows = series.daily_rows(start, self.window_days + 1, scale)
        feats = torch.tensor(rows[:-1], dtype=torch.float32)
        feats[:, :6] = torch.log1p(feats[:, :6])
        return feats, math.log1p(rows[-1][0]), series.name


class WindowBatchSampler(Sampler):
    """Batches of (household, start day) keys: households drawn with replacement, start days uniform."""

    def __init__(self, dataset, batch_size, batches_per_epoch, seed):
        self.spans = [s.n_days - dataset.window_days for s in dataset.series]
        self.batch_size = batch_size
        self.batches_per_epoch = batches_per_epoch
        self.rng = random.Random(seed)

    def __len__(self):
        return self.batches_per_epoch

    def __iter__(self):
        for _ in range(self.batches_per_epoch):
            batch = []
            for _ in range(self.batch_size):
                hh = self.rng.randrange(len(self.spans))
                batch.append((hh, self.rng.randrange(self.spans[hh])))
            yield batch


def collate_meter(items):
    feats, targets, names = zip(*items)
    return MeterBatch(torch.stack(feats), torch.tensor(targets, dtype=torch.float32), list(names))
