"""Global MLP forecaster for daily store demand with calendar covariates.

    python train.py --settings settings.py
"""
import argparse
import datetime as dt
import math
import random
import runpy
import statistics

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import evalkit

# --------------------------------------------------------------------------- holidays


def easter(year):
    """Anonymous Gregorian algorithm (Meeus/Jones/Butcher)."""
    a, b, c = year % 19, year // 100, year % 100
    d, e = b // 4, b % 4
    f = (b + 8) // 25
    g = (b - f + 1) // 3
    h = (19 * a + b - d - g + 15) % 30
    i, k = c // 4, c % 4
    l_ = (32 + 2 * e + 2 * i - h - k) % 7
    m = (a + 11 * h + 22 * l_) // 451
    month = (h + l_ - 7 * m + 114) // 31
    day = (h + l_ - 7 * m + 114) % 31 + 1
    return dt.date(year, month, day)


FIXED = {"DE": [(1, 1), (5, 1), (10, 3), (12, 25), (12, 26)],
         "FR": [(1, 1), (5, 1), (5, 8), (7, 14), (8, 15), (11, 1), (11, 11), (12, 25)],
         "NL": [(1, 1), (4, 27), (12, 25), (12, 26)]}
EASTER_OFFSETS = {"DE": [-2, 1, 39, 50], "FR": [1, 39, 50], "NL": [-2, 1, 39, 49, 50]}


def holiday_calendar(countries, years):
    """Public holidays of several countries as one list (a store chain closes on any of them)."""
    days = []
    for year in years:
        for country in countries:
            days.extend(dt.date(year, m, d) for m, d in FIXED[country])
            e = easter(year)
            days.extend(e + dt.timedelta(days=o) for o in EASTER_OFFSETS[country])
    return sorted(set(days))


# --------------------------------------------------------------------------- data


def make_series(n_series, start, n_days, holidays, missing_rate, seed):
    """Daily demand: level * weekly * yearly profile, holiday dips, noise, and gaps (NaN)."""
    rng = np.random.default_rng(seed)
    hol = {(h - start).days for h in holidays}
    t = np.arange(n_days)
    dow = np.array([(start + dt.timedelta(days=int(i))).weekday() for i in t])
    out = []
    for _ in range(n_series):
        level = rng.uniform(20, 200)
        weekly = 1 + rng.uniform(0.1, 0.4) * np.array([-.2, -.1, 0, .1, .4, .8, -.6])[dow]
        yearly = 1 + rng.uniform(0.05, 0.3) * np.sin(2 * np.pi * (t + rng.uniform(0, 365)) / 365.25)
        trend = 1 + rng.uniform(-0.2, 0.4) * t / n_days
        y = level * weekly * yearly * trend * rng.lognormal(0, 0.1, n_days)
        y[[i for i in t if i in hol]] *= 0.15
        y = np.round(y, 1)
        y[rng.random(n_days) < missing_rate] = np.nan
        for _ in range(3):  # outages: a few days to two weeks without data
            s = rng.integers(0, n_days - 15)
            y[s:s + rng.integers(3, 15)] = np.nan
        out.append(y)
    return out


class WindowDataset(Dataset):
    """All (series, start) windows of length context + prediction whose lags stay in range."""

    def __init__(self, n_series, n_days, context, prediction, max_lag, stride):
        self.windows = [(s, t) for s in range(n_series)
                        for t in range(max_lag, n_days - context - prediction + 1, stride)]

    def __len__(self):
        return len(self.windows)

    def __getitem__(self, idx):
        return self.windows[idx]


class CalendarForecastCollator:
    """Builds encoder / decoder tensors for a list of (series_id, start) windows (HF-style collator)."""

    def __init__(self, series, start_date, holidays, context, prediction, lags):
        self.series = [list(map(float, s)) for s in series]
        self.start_date = start_date
        self.holidays = holidays  # sorted list of dates
        self.context, self.prediction, self.lags = context, prediction, tuple(lags)

    def time_features(self, pos):
        d = self.start_date + dt.timedelta(days=pos)
        dow, doy = d.weekday(), d.timetuple().tm_yday
        is_holiday = 1.0 if d in self.holidays else 0.0
        ahead = [(h - d).days for h in self.holidays if h >= d]
        to_next = min(ahead) if ahead else 30
        next_day = d + dt.timedelta(days=1)
        return [math.sin(2 * math.pi * dow / 7), math.cos(2 * math.pi * dow / 7),
                math.sin(2 * math.pi * doy / 365.25), math.cos(2 * math.pi * doy / 365.25),
                is_holiday, min(to_next, 30) / 30.0, 1.0 if next_day.month != d.month else 0.0]

    @staticmethod
    def last_observed(values, pos):
        """Forward fill: the latest non-missing value at or before pos (0.0 if there is none)."""
        while pos >= 0:
            v = values[pos]
            if not math.isnan(v):
                return v
            pos -= 1
        return 0.0

    def __call__(self, windows):
        ctx, pred = self.context, self.prediction
        past_values, past_mask, past_time, past_lags = [], [], [], []
        future_values, future_mask, future_time, scales, ids = [], [], [], [], []
        for sid, start in windows:
            values = self.series[sid]
            enc_vals, enc_mask, enc_time, enc_lags = [], [], [], []
            for pos in range(start, start + ctx):
                v = values[pos]
                observed = not math.isnan(v)
                enc_vals.append(v if observed else self.last_observed(values, pos))
                enc_mask.append(1.0 if observed else 0.0)
                enc_time.append(self.time_features(pos))
                enc_lags.append([self.last_observed(values, pos - lag) for lag in self.lags])
            obs = [abs(v) for v, m in zip(enc_vals, enc_mask) if m]
            scale = statistics.fmean(obs) + 1.0 if obs else 1.0
            dec_vals, dec_mask, dec_time = [], [], []
            for pos in range(start + ctx, start + ctx + pred):
                v = values[pos]
                dec_vals.append(0.0 if math.isnan(v) else v / scale)
                dec_mask.append(0.0 if math.isnan(v) else 1.0)
                dec_time.append(self.time_features(pos))
            past_values.append([v / scale for v in enc_vals])
            past_mask.append(enc_mask)
            past_time.append(enc_time)
            past_lags.append([[v / scale for v in row] for row in enc_lags])
            future_values.append(dec_vals)
            future_mask.append(dec_mask)
            future_time.append(dec_time)
            scales.append(scale)
            ids.append(sid)
        return {
            "past_values": torch.tensor(past_values, dtype=torch.float32),
            "past_observed_mask": torch.tensor(past_mask, dtype=torch.float32),
            "past_time_features": torch.tensor(past_time, dtype=torch.float32),
            "past_lags": torch.tensor(past_lags, dtype=torch.float32),
            "future_values": torch.tensor(future_values, dtype=torch.float32),
            "future_observed_mask": torch.tensor(future_mask, dtype=torch.float32),
            "future_time_features": torch.tensor(future_time, dtype=torch.float32),
            "scale": torch.tensor(scales, dtype=torch.float64),
            "static_ids": torch.tensor(ids, dtype=torch.long),
        }


# --------------------------------------------------------------------------- model / loop


class MLPForecaster(nn.Module):
    def __init__(self, n_series, context, prediction, n_time, n_lags, hidden):
        super().__init__()
        self.embed = nn.Embedding(n_series, 8)
        d_in = context * (2 + n_time + n_lags) + prediction * n_time + 8
        self.net = nn.Sequential(nn.Linear(d_in, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(),
                                 nn.Linear(hidden, prediction))

    def forward(self, b):
        x = torch.cat([b["past_values"].unsqueeze(-1), b["past_observed_mask"].unsqueeze(-1),
                       b["past_time_features"], b["past_lags"]], dim=-1).flatten(1)
        x = torch.cat([x, b["future_time_features"].flatten(1), self.embed(b["static_ids"])], dim=1)
        return self.net(x)


def masked_mae(pred, target, mask):
    return ((pred - target).abs() * mask).sum() / mask.sum().clamp(min=1.0)


class Callback:
    def on_step_end(self, state):
        pass

    def on_fit_end(self, state):
        pass


class MeterCallback(Callback):
    def __init__(self, meter):
        self.meter = meter

    def on_step_end(self, state):
        self.meter.step(state["loss"])
        if self.meter.done():
            state["stop"] = True


class WarmupCallback(Callback):
    def __init__(self, opt, base_lr, warmup):
        self.opt, self.base_lr, self.warmup = opt, base_lr, warmup

    def on_step_end(self, state):
        lr = self.base_lr * min(1.0, (state["step"] + 1) / self.warmup)
        for group in self.opt.param_groups:
            group["lr"] = lr


class HistoryCallback(Callback):
    def __init__(self):
        self.maes = []

    def on_step_end(self, state):
        self.maes.append(round(float(state["loss"]), 6))


def fit(model, loader, opt, epochs, max_steps, meter, callbacks):
    state = {"step": 0, "stop": False}
    for epoch in range(epochs):
        for batch in loader:
            meter.batch(batch)
            pred = model(batch)
            loss = masked_mae(pred, batch["future_values"], batch["future_observed_mask"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            state.update(loss=loss.detach(), epoch=epoch)
            for cb in callbacks:
                cb.on_step_end(state)
            state["step"] += 1
            if state["stop"] or state["step"] >= max_steps:
                return state
    return state


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    args = ap.parse_args()
    s = runpy.run_path(args.settings)

    seed = s["SEED"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    start = dt.date.fromisoformat(s["START_DATE"])
    last_year = (start + dt.timedelta(days=s["N_DAYS"] + 366)).year
    holidays = holiday_calendar(s["COUNTRIES"], range(start.year, last_year + 1))
    series = make_series(s["N_SERIES"], start, s["N_DAYS"], holidays, s["MISSING_RATE"], seed)
    ctx, pred, lags = s["CONTEXT_LENGTH"], s["PREDICTION_LENGTH"], s["LAGS"]
    dataset = WindowDataset(len(series), s["N_DAYS"], ctx, pred, max(lags), s["WINDOW_STRIDE"])
    collator = CalendarForecastCollator(series, start, holidays, ctx, pred, lags)
    loader = DataLoader(dataset, batch_size=s["BATCH_SIZE"], shuffle=True, drop_last=True,
                        collate_fn=collator, num_workers=s["NUM_WORKERS"],
                        generator=torch.Generator().manual_seed(seed))

    model = MLPForecaster(len(series), ctx, pred, 7, len(lags), s["HIDDEN"])
    opt = torch.optim.Adam(model.parameters(), lr=s["LEARNING_RATE"])
    meter = evalkit.Meter()
    history = HistoryCallback()
    state = fit(model, loader, opt, s["EPOCHS"], s["MAX_STEPS"], meter,
                [WarmupCallback(opt, s["LEARNING_RATE"], 20), history, MeterCallback(meter)])
    meter.report({"steps": state["step"], "windows": len(dataset), "mae_tail": history.maes[-5:]})


if __name__ == "__main__":
    main()
