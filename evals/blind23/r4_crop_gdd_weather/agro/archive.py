"""A synthetic weather archive: one CSV text per field-season, as exported by a station network."""
import csv
import datetime as dt
import io

import numpy as np


def _field_csv(rng, start, days):
    doy = np.arange(days) + (start - dt.date(start.year, 1, 1)).days
    lat_shift = rng.uniform(-4, 4)
    seasonal = 12.0 + lat_shift + 11.0 * np.sin(2 * np.pi * (doy - 105) / 365.0)
    tmean = seasonal + np.convolve(rng.normal(0, 2.5, days + 6), np.ones(7) / 7, mode="valid")
    spread = rng.uniform(7, 13) + rng.normal(0, 1.5, days)
    tmin, tmax = tmean - spread / 2, tmean + spread / 2
    wet = rng.random(days) < rng.uniform(0.15, 0.4)
    rain = np.where(wet, rng.gamma(0.8, rng.uniform(4, 9), days), 0.0)
    solar = np.clip(15 + 9 * np.sin(2 * np.pi * (doy - 80) / 365.0) - 4 * wet + rng.normal(0, 2, days), 1, None)
    out = io.StringIO()
    out.write("date,tmin_c,tmax_c,rain_mm,solar_mj\n")
    for d in range(days):
        day = start + dt.timedelta(days=int(d))
        out.write(f"{day.isoformat()},{tmin[d]:.1f},{tmax[d]:.1f},{rain[d]:.1f},{solar[d]:.1f}\n")
    return out.getvalue(), lat_shift


def build_archive(settings):
    start = dt.date.fromisoformat(settings.START_DATE)
    files, meta = {}, {}
    for f in range(settings.NUM_FIELDS):
        rng = np.random.default_rng([settings.SEED, f])
        text, lat_shift = _field_csv(rng, start, settings.DAYS)
        field_id = f"F{f:05d}"
        files[f"{field_id}.csv"] = text
        meta[field_id] = {
            "sowing_day": int(rng.integers(45, 81)),  # days after the first record
            "soil_index": float(rng.uniform(0.5, 1.5)),
            "lat_shift": lat_shift,
        }
    return files, meta


def read_weather_csv(text):
    reader = csv.DictReader(io.StringIO(text))
    cols = {"tmin_c": [], "tmax_c": [], "rain_mm": [], "solar_mj": []}
    for row in reader:
        for k in cols:
            cols[k].append(float(row[k]))
    return {k: np.asarray(v, dtype=np.float64) for k, v in cols.items()}
