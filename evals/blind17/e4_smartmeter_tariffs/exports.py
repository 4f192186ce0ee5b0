"""Household smart-meter CSV exports (supplier portal format) and their tariff histories."""
import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone

import ukclock


@dataclass
class Band:
    name: str
    days: frozenset  # weekdays, Monday = 0
    start_min: int
    end_min: int
    rate: float  # p/kWh


@dataclass
class Tariff:
    effective: date
    name: str
    standard_rate: float
    standing_charge: float  # p/day
    bands: list = field(default_factory=list)

    def band_at(self, local_dt):
        minute = local_dt.hour * 60 + local_dt.minute
        for band in self.bands:
            if local_dt.weekday() in band.days and band.start_min <= minute < band.end_min:
                return band.name, band.rate
        return "standard", self.standard_rate


EVERY_DAY = frozenset(range(7))
WEEKDAYS = frozenset(range(5))


def make_tariff(rng, effective):
    kind = rng.choice(["flat", "economy7", "tou"])
    std = round(rng.uniform(24.0, 34.0), 2)
    standing = round(rng.uniform(40.0, 60.0), 2)
    if kind == "flat":
        bands = []
    elif kind == "economy7":
        bands = [Band("offpeak", EVERY_DAY, 30, 450, round(std * rng.uniform(0.4, 0.55), 2))]
    else:
        bands = [Band("peak", WEEKDAYS, 960, 1140, round(std * rng.uniform(1.4, 1.8), 2)),
                 Band("offpeak", EVERY_DAY, 0, 300, round(std * rng.uniform(0.45, 0.6), 2))]
    return Tariff(effective, kind, std, standing, bands)


def make_household(rng, hh_id, n_days):
    autumn = rng.random() < 0.5
    first = date(2023, 10, 10) if autumn else date(2023, 3, 12)
    first += timedelta(days=rng.randint(0, 12))
    history = [make_tariff(rng, date(2023, 1, 1))]
    if rng.random() < 0.5:
        history.append(make_tariff(rng, first + timedelta(days=rng.randint(5, n_days - 5))))
    base = rng.uniform(0.08, 0.25)
    evening = rng.uniform(0.2, 0.9)
    ev_charger = rng.random() < 0.3
    lines = [f"# MPAN: 19000{hh_id:08d}", "# Meter type: SMETS2 import", "# Units: kWh, half-hourly",
             "timestamp,consumption_kwh,estimated"]
    t = ukclock.local_midnight_utc(first)
    end = ukclock.local_midnight_utc(first + timedelta(days=n_days))
    outage_at, outage_len = None, 0
    while t < end:
        local = ukclock.to_local(t)
        hour = local.hour + local.minute / 60
        load = base + evening * max(0.0, 1 - abs(hour - 19) / 3) + 0.15 * max(0.0, 1 - abs(hour - 8) / 1.5)
        if local.weekday() >= 5:
            load *= 1.15
        if ev_charger and 0.5 <= hour < 4.5 and rng.random() < 0.7:
            load += 3.5
        kwh = max(0.0, load * rng.lognormvariate(0, 0.35))
        if outage_len == 0 and rng.random() < 0.002:
            outage_len = rng.randint(4, 18)
        offset = "+01:00" if ukclock.utc_offset(t) else "+00:00"
        stamp = f"{local:%Y-%m-%dT%H:%M:%S}{offset}"
        if outage_len:
            outage_len -= 1
        elif rng.random() < 0.015:
            pass  # row missing from the export
        elif rng.random() < 0.01:
            lines.append(f"{stamp},,Y")
        else:
            lines.append(f"{stamp},{kwh:.3f},N")
        t += timedelta(minutes=30)
    return {"household": f"HH{hh_id:04d}", "csv": "\n".join(lines) + "\n", "tariffs": history,
            "first_day": first, "n_days": n_days}


def make_exports(n, n_days, seed):
    rng = random.Random(seed)
    return [make_household(rng, i, n_days) for i in range(n)]


def parse_export(text):
    """CSV text -> {utc epoch seconds: kWh or None}. Comment lines start with '#'."""
    readings = {}
    rows = (line for line in text.splitlines() if line and not line.startswith("#"))
    header = next(rows).split(",")
    i_ts, i_kwh = header.index("timestamp"), header.index("consumption_kwh")
    for line in rows:
        cols = line.split(",")
        stamp = datetime.fromisoformat(cols[i_ts]).astimezone(timezone.utc)
        value = cols[i_kwh].strip()
        readings[int(stamp.timestamp())] = float(value) if value else None
    return readings
