"""Next-hour temperature from the last 12 METAR reports of a station (GRU regressor).

    python train.py metar.ini
"""
import configparser
import math
import random
import sys
from collections import namedtuple
from datetime import timedelta

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, IterableDataset

import evalkit
from metar import FIELDS, parse_report, synthesize_reports

DEFAULTS = {"temp_c": 10.0, "dewpt_c": 5.0, "wind_ms": 3.0, "gust_ms": 3.0, "wind_dir": 0.0,
            "vis_km": 10.0, "press_hpa": 1013.25, "cloud_oktas": 4.0, "ceiling_ft": 12000.0}
N_FEATURES = 14

MetarBatch = namedtuple("MetarBatch", ["features", "carried", "target", "station_idx"])


def relative_humidity(t, td):
    """Magnus formula, percent."""
    a, b = 17.625, 243.04
    return 100.0 * math.exp(a * td / (b + td)) / math.exp(a * t / (b + t))


def report_features(rec, prev_time):
    t, td = rec["temp_c"], rec["dewpt_c"]
    rad = math.radians(rec["wind_dir"])
    hour = rec["time"].hour + rec["time"].minute / 60.0
    gap_h = 1.0 if prev_time is None else (rec["time"] - prev_time).total_seconds() / 3600.0
    return [t / 10.0, td / 10.0, relative_humidity(t, td) / 100.0, rec["wind_ms"] / 10.0,
            (rec["gust_ms"] - rec["wind_ms"]) / 10.0, math.sin(rad), math.cos(rad), rec["vis_km"] / 10.0,
            (rec["press_hpa"] - 1013.25) / 10.0, rec["cloud_oktas"] / 8.0, math.log10(rec["ceiling_ft"] + 1.0) / 4.0,
            math.sin(2 * math.pi * hour / 24.0), math.cos(2 * math.pi * hour / 24.0), gap_h]


class MetarWindows(IterableDataset):
    """Shuffled (station, hour) windows; a missing field takes the station's last reported value
    if that report is at most `max_carry` old, else a climatological default."""

    def __init__(self, reports, window, max_carry_minutes, year, month, seed):
        self.reports = reports
        self.stations = sorted(reports)
        self.window, self.year, self.month = window, year, month
        self.max_carry = timedelta(minutes=max_carry_minutes)
        self.windows = [(s, end) for s in self.stations for end in range(window - 1, len(reports[s]) - 1)]
        self.rng = np.random.default_rng(seed)

    def _parse(self, station, j):
        return parse_report(self.reports[station][j], self.year, self.month)

    def _carry(self, station, j, field, when):
        """Walk back through the station's reports for the latest value of `field`."""
        if j < 0:
            return None
        rec = self._parse(station, j)
        if when - rec["time"] > self.max_carry:
            return None
        if rec[field] is not None:
            return rec[field]
        return self._carry(station, j - 1, field, when)

    def _filled(self, station, j):
        rec = self._parse(station, j)
        carried = []
        for field in FIELDS:
            if rec[field] is None:
                value = self._carry(station, j - 1, field, rec["time"])
                rec[field] = DEFAULTS[field] if value is None else value
                carried.append(True)
            else:
                carried.append(False)
        return rec, carried

    def _make_window(self, station, end):
        feats, flags = [], []
        prev_time = self._parse(station, end - self.window)["time"] if end - self.window >= 0 else None
        for j in range(end - self.window + 1, end + 1):
            rec, carried = self._filled(station, j)
            feats.append(report_features(rec, prev_time))
            flags.append(carried)
            prev_time = rec["time"]
        nxt, _ = self._filled(station, end + 1)
        return feats, flags, nxt["temp_c"] / 10.0, self.stations.index(station)

    def __iter__(self):
        for w in self.rng.permutation(len(self.windows)).tolist():
            yield self._make_window(*self.windows[w])


def collate_windows(items):
    feats, flags, targets, stations = zip(*items)
    return MetarBatch(torch.tensor(feats, dtype=torch.float32), torch.tensor(flags, dtype=torch.bool),
                      torch.tensor(targets, dtype=torch.float32), torch.tensor(stations, dtype=torch.long))


class NextHourGRU(nn.Module):
    def __init__(self, n_in, hidden, n_stations):
        super().__init__()
        self.station = nn.Embedding(n_stations, 8)
        self.gru = nn.GRU(n_in + 9, hidden, batch_first=True)
        self.head = nn.Linear(hidden + 8, 1)

    def forward(self, feats, carried, station_idx):
        x = torch.cat([feats, carried.float()], dim=-1)
        _, h = self.gru(x)
        return self.head(torch.cat([h[-1], self.station(station_idx)], dim=-1)).squeeze(-1)


class Callback:
    def on_step_end(self, trainer, step, loss, batch):
        pass

    def on_epoch_end(self, trainer, epoch):
        pass


class PrintLoss(Callback):
    def __init__(self, every):
        self.every = every

    def on_step_end(self, trainer, step, loss, batch):
        if step % self.every == 0:
            print(f"step {step} mse {loss:.5f}", flush=True)


class CarriedStats(Callback):
    def __init__(self):
        self.carried = 0
        self.total = 0

    def on_step_end(self, trainer, step, loss, batch):
        self.carried += int(batch.carried.sum())
        self.total += batch.carried.numel()


def main():
    cfg = configparser.ConfigParser()
    cfg.read(sys.argv[1] if len(sys.argv) > 1 else "metar.ini")
    d, lc, tc = cfg["data"], cfg["loader"], cfg["train"]
    torch.set_num_threads(1)
    seed = d.getint("seed")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    reports = synthesize_reports(d.getint("reports_per_station"), seed)
    ds = MetarWindows(reports, d.getint("window"), d.getint("max_carry_minutes"), d.getint("year"),
                      d.getint("month"), seed + 1)
    loader = DataLoader(ds, batch_size=lc.getint("batch_size"), num_workers=lc.getint("num_workers"),
                        collate_fn=collate_windows)
    model = NextHourGRU(N_FEATURES, tc.getint("hidden"), len(ds.stations))
    opt = torch.optim.Adam(model.parameters(), lr=tc.getfloat("lr"))
    stats = CarriedStats()
    callbacks = [PrintLoss(tc.getint("log_every")), stats]
    meter = evalkit.Meter()
    step = 0
    for epoch in range(tc.getint("epochs")):
        for batch in loader:
            meter.batch(batch)
            pred = model(batch.features, batch.carried, batch.station_idx)
            loss = nn.functional.mse_loss(pred, batch.target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            for cb in callbacks:
                cb.on_step_end(None, step, loss.item(), batch)
            if meter.done():
                break
        for cb in callbacks:
            cb.on_epoch_end(None, epoch)
        if meter.done():
            break
    meter.report(extra={"carried_fraction": round(stats.carried / max(stats.total, 1), 8), "steps": step})


if __name__ == "__main__":
    main()
