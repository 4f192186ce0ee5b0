"""Classify the transport mode (walk, bike, bus, car) of GPS trips.

Each trip arrives as the CSV text a phone logger writes. A sample is one random window of the trip,
resampled to a fixed time grid: local east/north offsets, speed, stop flag, distance travelled.
"""
import argparse
import bisect
import math
import random
import tomllib
from collections import namedtuple
from datetime import datetime, timedelta, timezone

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset

import evalkit

EARTH_RADIUS_M = 6371008.8
MODES = ("walk", "bike", "bus", "car")
SPEED_MPS = {"walk": (1.4, 0.3), "bike": (4.5, 1.0), "bus": (7.0, 2.5), "car": (11.0, 3.5)}
STOPS_PER_KM = {"walk": 0.3, "bike": 0.6, "bus": 2.5, "car": 1.2}

TripWindow = namedtuple("TripWindow", ["features", "mode", "stop_share"])


# ---------------------------------------------------------------- synthetic logger output
def simulate_trip(rng, mode, n_points, origin, t0):
    mean, sd = SPEED_MPS[mode]
    lat0 = origin[0] + rng.normal(0, 0.02)
    lon0 = origin[1] + rng.normal(0, 0.03)
    heading = rng.uniform(0, 2 * math.pi)
    coslat0 = math.cos(math.radians(lat0))
    # Logger cadence: mostly 1-3 s, some repeated fixes (dt = 0).
    dts = rng.choice([1.0, 1.0, 2.0, 2.0, 3.0, 0.0], p=[0.3, 0.2, 0.25, 0.1, 0.1, 0.05], size=n_points)
    dts = np.where(dts > 0, dts + rng.uniform(-0.05, 0.05, size=n_points), 0.0)
    u_stop = rng.random(n_points)
    stop_len = rng.uniform(40, 150, size=n_points)
    speed_draw = np.maximum(0.2, rng.normal(mean, sd, size=n_points))
    turn = rng.normal(0, 0.15, size=n_points)
    noise = rng.normal(0, 3.0, size=(n_points, 2))
    hdop = rng.uniform(0.6, 2.5, size=n_points)
    east = north = 0.0
    t = t0
    stop_left = 0.0
    rows = []
    for k in range(n_points):
        dt = float(dts[k])
        t += timedelta(seconds=dt)
        if stop_left <= 0 and u_stop[k] < STOPS_PER_KM[mode] * mean * dt / 1000.0 * 3:
            stop_left = float(stop_len[k])
        if stop_left > 0:
            stop_left -= dt
            speed = 0.0
        else:
            speed = float(speed_draw[k])
            heading += float(turn[k])
        east += speed * dt * math.cos(heading)
        north += speed * dt * math.sin(heading)
        lat = lat0 + math.degrees((north + noise[k, 1]) / EARTH_RADIUS_M)
        lon = lon0 + math.degrees((east + noise[k, 0]) / (EARTH_RADIUS_M * coslat0))
        stamp = t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{t.microsecond // 1000:03d}Z"
        rows.append(f"{stamp},{lat:.6f},{lon:.6f},{hdop[k]:.1f}")
    return "time,lat,lon,hdop\n" + "\n".join(rows) + "\n"


def make_trips(cfg, rng):
    d = cfg["data"]
    trips = []
    base = datetime(2026, 5, 4, 7, 0, 0, tzinfo=timezone.utc)
    for k in range(d["num_tracks"]):
        mode = MODES[k % len(MODES)]
        n = int(rng.integers(d["min_points"], d["max_points"] + 1))
        start = base + timedelta(minutes=int(rng.integers(0, 60 * 24 * 20)))
        trips.append((simulate_trip(rng, mode, n, d["origin"], start), MODES.index(mode)))
    return trips


# ---------------------------------------------------------------- trajectory features
def parse_track(text):
    ts, lats, lons = [], [], []
    for line in text.splitlines()[1:]:
        if not line:
            continue
        stamp, lat, lon, _hdop = line.split(",")
        when = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
        ts.append(when.timestamp())
        lats.append(float(lat))
        lons.append(float(lon))
    return ts, lats, lons


def haversine(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dphi = p2 - p1
    dlmb = math.radians(lon2 - lon1)
    a = math.sin(dphi / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dlmb / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(a))


def step_speeds(ts, lats, lons):
    """Per-point speed (m/s) from the step that ends at the point; cumulative distance."""
    speeds, cum = [0.0], [0.0]
    for i in range(1, len(ts)):
        d = haversine(lats[i - 1], lons[i - 1], lats[i], lons[i])
        dt = ts[i] - ts[i - 1]
        speeds.append(d / dt if dt > 0 else speeds[-1])
        cum.append(cum[-1] + d)
    return speeds, cum


def stay_points(ts, lats, lons, radius_m, min_seconds):
    """Li et al. (2008): from anchor i, extend j while within radius_m of the anchor; a run that lasts
    at least min_seconds is a stay and the scan resumes after it."""
    n = len(ts)
    flags = [0.0] * n
    i = 0
    while i < n:
        j = i + 1
        while j < n and haversine(lats[i], lons[i], lats[j], lons[j]) <= radius_m:
            j += 1
        if ts[j - 1] - ts[i] >= min_seconds:
            for k in range(i, j):
                flags[k] = 1.0
            i = j
        else:
            i += 1
    return flags


def interp_at(ts, values, t):
    i = bisect.bisect_right(ts, t) - 1
    i = min(max(i, 0), len(ts) - 2)
    t0, t1 = ts[i], ts[i + 1]
    if t1 == t0:
        return values[i + 1]
    w = (t - t0) / (t1 - t0)
    return values[i] + w * (values[i + 1] - values[i])


class GPSTripStream(IterableDataset):
    """Yields one random window per trip and epoch, in a freshly shuffled trip order."""

    def __init__(self, trips, fcfg, seed):
        self.trips = trips
        self.f = fcfg
        self.rng = random.Random(seed)

    def window(self, text, mode):
        f = self.f
        ts, lats, lons = parse_track(text)
        speeds, cum = step_speeds(ts, lats, lons)
        stops = stay_points(ts, lats, lons, f["stop_radius_m"], f["stop_min_seconds"])
        span = f["grid_seconds"] * (f["grid_len"] - 1)
        start = self.rng.uniform(ts[0], ts[-1] - span)
        grid = [start + k * f["grid_seconds"] for k in range(f["grid_len"])]
        glat = [interp_at(ts, lats, g) for g in grid]
        glon = [interp_at(ts, lons, g) for g in grid]
        coslat = math.cos(math.radians(glat[0]))
        rows = []
        for k, g in enumerate(grid):
            north = math.radians(glat[k] - glat[0]) * EARTH_RADIUS_M
            east = math.radians(glon[k] - glon[0]) * EARTH_RADIUS_M * coslat
            j = max(bisect.bisect_right(ts, g) - 1, 0)
            rows.append([east / 1000.0, north / 1000.0, interp_at(ts, speeds, g) / 10.0, stops[j],
                         (interp_at(ts, cum, g) - interp_at(ts, cum, grid[0])) / 1000.0])
        feats = torch.tensor(rows, dtype=torch.float32)
        return TripWindow(feats, mode, float(feats[:, 3].mean()))

    def __iter__(self):
        order = list(range(len(self.trips)))
        self.rng.shuffle(order)
        for idx in order:
            text, mode = self.trips[idx]
            yield self.window(text, mode)


class ModeGRU(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.inp = nn.Linear(5, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.head = nn.Linear(hidden, len(MODES))

    def forward(self, x):
        out, _ = self.gru(torch.relu(self.inp(x)))
        return self.head(out[:, -1])


class Trainer:
    def __init__(self, model, loader, cfg, meter):
        self.model, self.loader, self.cfg, self.meter = model, loader, cfg, meter
        self.opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
        self.stop_share = []

    def train_epoch(self):
        for batch in self.loader:
            self.meter.batch(batch)
            loss = F.cross_entropy(self.model(batch.features), batch.mode)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.stop_share.append(round(float(batch.stop_share.mean()), 6))
            self.meter.step(loss)
            if self.meter.done():
                return False
        return True

    def fit(self):
        for _ in range(self.cfg["train"]["epochs"]):
            if not self.train_epoch():
                break
        self.meter.report({"mean_stop_share": round(sum(self.stop_share) / len(self.stop_share), 6)})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    trips = make_trips(cfg, np.random.default_rng(cfg["seed"]))
    stream = GPSTripStream(trips, cfg["features"], seed=cfg["seed"] + 17)
    loader = DataLoader(stream, batch_size=cfg["train"]["batch_size"], num_workers=cfg["data"]["num_workers"])
    model = ModeGRU(cfg["train"]["hidden"])
    Trainer(model, loader, cfg, evalkit.Meter()).fit()


if __name__ == "__main__":
    main()
