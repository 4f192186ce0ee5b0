"""Synthetic station logs in the JSON-lines format the gateway uploads.

One line per reading: {"station", "ts" (ISO 8601 with the station's UTC offset), "pollutant",
"value", "unit", optional "qc" and "rev"}. Readings arrive mostly in order; some come in late,
some are re-sent with a revised value, some are null or flagged invalid. Older sensor firmware
reports gases in mass concentration instead of mixing ratio.
"""
import datetime as dt
import json
import math

import numpy as np

from .aqi import POLLUTANTS

# molar-volume conversions at 25 degC, 1 atm: ug/m3 (or mg/m3) per ppb (ppm)
UNIT_FACTORS = {
    ("o3", "ppm"): 1.0, ("o3", "ppb"): 1e-3, ("o3", "ug/m3"): 1e-3 / 1.9957,
    ("co", "ppm"): 1.0, ("co", "ppb"): 1e-3, ("co", "mg/m3"): 1.0 / 1.1456,
    ("no2", "ppb"): 1.0, ("no2", "ppm"): 1e3, ("no2", "ug/m3"): 1.0 / 1.8816,
    ("pm25", "ug/m3"): 1.0, ("pm25", "mg/m3"): 1e3,
    ("pm10", "ug/m3"): 1.0, ("pm10", "mg/m3"): 1e3,
}
EPOCH = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)


def parse_hour(ts):
    """ISO timestamp -> hours since EPOCH (UTC)."""
    return int((dt.datetime.fromisoformat(ts) - EPOCH).total_seconds() // 3600)


def to_reporting_unit(pollutant, value, unit):
    return value * UNIT_FACTORS[(pollutant, unit)]


def synth_station_log(rng, station, n_hours):
    """Return (lines, daily_category) for one station."""
    offset = int(rng.choice([-5, -4, 0, 1, 2, 8]))
    tz = dt.timezone(dt.timedelta(hours=offset))
    legacy = rng.random() < 0.4  # mass-concentration firmware for the gases
    hours = np.arange(n_hours)
    diurnal = np.sin(2 * np.pi * (hours + offset - 9) / 24)
    episode = np.convolve(rng.gamma(0.4, 1.0, n_hours), np.ones(36) / 36, mode="same")
    level = {
        "pm25": np.maximum(0.5, 8 + 25 * episode + 4 * diurnal + rng.normal(0, 3, n_hours)),
        "pm10": np.maximum(1.0, 20 + 60 * episode + 8 * diurnal + rng.normal(0, 6, n_hours)),
        "o3": np.maximum(1.0, 30 + 25 * diurnal + 20 * episode + rng.normal(0, 5, n_hours)),
        "co": np.maximum(0.05, 0.4 + 2.5 * episode - 0.2 * diurnal + rng.normal(0, 0.1, n_hours)),
        "no2": np.maximum(0.5, 15 + 30 * episode - 8 * diurnal + rng.normal(0, 4, n_hours)),
    }
    lines = []
    late = []
    for h in range(n_hours):
        stamp = (EPOCH + dt.timedelta(hours=h)).astimezone(tz)
        ts = stamp.isoformat() if offset else stamp.strftime("%Y-%m-%dT%H:%M:%SZ")
        for pol in POLLUTANTS:
            v = float(level[pol][h])
            unit = {"pm25": "ug/m3", "pm10": "ug/m3", "o3": "ppb", "co": "ppm", "no2": "ppb"}[pol]
            if legacy and pol == "o3":
                v, unit = v * 1.9957, "ug/m3"
            elif legacy and pol == "co":
                v, unit = v * 1.1456, "mg/m3"
            elif legacy and pol == "no2":
                v, unit = v * 1.8816, "ug/m3"
            rec = {"station": station, "ts": ts, "pollutant": pol,
                   "value": round(v, 3 if pol == "co" else 1), "unit": unit}
            u = rng.random()
            if u < 0.03:
                rec["value"] = None
            elif u < 0.04:
                rec["qc"] = "invalid"
            text = json.dumps(rec)
            if rng.random() < 0.02:  # buffered on the gateway, uploaded a few hours later
                late.append((h + int(rng.integers(1, 6)), text))
            else:
                lines.append(text)
            if rng.random() < 0.01:  # re-sent with a revised calibration
                rev = dict(rec, value=None if rec["value"] is None else round(rec["value"] * 1.05, 3), rev=2)
                late.append((h + int(rng.integers(0, 4)), json.dumps(rev)))
        due = [t for t in late if t[0] <= h]
        late = [t for t in late if t[0] > h]
        lines.extend(text for _, text in due)
    lines.extend(text for _, text in late)
    # the official daily category, from the regulator's reference monitor
    daily = [int(min(5, max(0, math.floor((level["pm25"][d * 24:(d + 1) * 24].mean() - 2) / 9))))
             for d in range(n_hours // 24)]
    return lines, daily
