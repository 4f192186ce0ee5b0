"""Forecast next week's calendar load from this week's, per user, from raw iCalendar feeds.

    python train.py --config calendar.toml
"""
import argparse
import random
import tomllib
from datetime import datetime, timedelta

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, Sampler

import evalkit
from icalendar_lite import ZONES, fold, from_utc, parse_calendar
from recurrence import occurrences

HOURS = 7 * 24
TITLES = ["Standup", "1:1 with manager", "Design review", "Sprint planning", "Customer call; EMEA",
          "Lunch & learn", "Board prep, Q{q}", "Gym", "Dentist", "Hiring sync", "Ops review", "Retro"]


def _ics_datetime(dt, tzid):
    if tzid == "UTC":
        return f"DTSTART:{dt:%Y%m%dT%H%M%S}Z"
    return f"DTSTART;TZID={tzid}:{dt:%Y%m%dT%H%M%S}"


def generate_feed(rng, n_events, first_week, history_days):
    zones = list(ZONES)
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//synthetic//calendar 1.0//EN", "CALSCALE:GREGORIAN"]
    for i in range(n_events):
        tzid = rng.choice(zones)
        start = first_week - timedelta(days=rng.randint(0, history_days))
        start = start.replace(hour=rng.randint(7, 18), minute=rng.choice([0, 15, 30, 45]))
        title = rng.choice(TITLES).format(q=rng.randint(1, 4))
        summary = title.replace(";", "\\;").replace(",", "\\,")
        lines += ["BEGIN:VEVENT", f"UID:{rng.getrandbits(64):016x}-{i}@calendar.example.com",
                  f"DTSTAMP:{first_week:%Y%m%d}T000000Z", _ics_datetime(start, tzid)]
        minutes = rng.choice([15, 25, 30, 45, 50, 60, 90, 120])
        if rng.random() < 0.5:
            lines.append(f"DURATION:PT{minutes // 60}H{minutes % 60}M" if minutes >= 60 else f"DURATION:PT{minutes}M")
        else:
            end = start + timedelta(minutes=minutes)
            lines.append(_ics_datetime(end, tzid).replace("DTSTART", "DTEND"))
        kind = rng.random()
        if kind < 0.55:
            days = rng.sample(["MO", "TU", "WE", "TH", "FR"], rng.randint(1, 3))
            rule = f"RRULE:FREQ=WEEKLY;INTERVAL={rng.choice([1, 1, 1, 2])};BYDAY={','.join(days)}"
            if rng.random() < 0.3:
                rule += f";COUNT={rng.randint(10, 200)}"
            elif rng.random() < 0.3:
                until = first_week + timedelta(days=rng.randint(-200, 200))
                rule += f";UNTIL={until:%Y%m%d}T235959Z"
            lines.append(rule)
            if rng.random() < 0.4:
                ex = [start + timedelta(weeks=rng.randint(1, 80)) for _ in range(rng.randint(1, 4))]
                lines.append(f"EXDATE;TZID={tzid}:" + ",".join(f"{e:%Y%m%dT%H%M%S}" for e in ex)
                             if tzid != "UTC" else "EXDATE:" + ",".join(f"{e:%Y%m%dT%H%M%S}Z" for e in ex))
        elif kind < 0.8:
            md = rng.choice(["1", "15", "31", "-1", "1,15", "28"])
            lines.append(f"RRULE:FREQ=MONTHLY;INTERVAL={rng.choice([1, 1, 3])};BYMONTHDAY={md}")
        lines.append(fold(f"DESCRIPTION:Agenda for {title}\\, notes: " + " ".join(
            rng.choice(["budget", "roadmap", "hiring", "latency", "Q&A", "follow-ups", "risks"])
            for _ in range(rng.randint(4, 30)))))
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    return "\r\n".join(lines) + "\r\n"


class CalendarLoadDataset(Dataset):
    """Item = (user, week): this week's load grid (with declined meetings dropped) -> next week's grid."""

    def __init__(self, feeds, homes, first_week, num_weeks, decline_prob, seed):
        self.feeds, self.homes = feeds, homes
        self.first_week, self.num_weeks = first_week, num_weeks
        self.decline_prob = decline_prob
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.feeds)

    def _grid(self, events, home, week_start, decline):
        week_end = week_start + timedelta(days=7)
        limit = week_end + timedelta(days=1)
        grid = [0.0] * HOURS
        n_occ, hours, distinct = 0, 0.0, set()
        for idx, event in enumerate(events):
            for start_utc, end_utc in occurrences(event, limit):
                start, end = from_utc(start_utc, home), from_utc(end_utc, home)
                if end <= week_start or start >= week_end:
                    continue
                if decline and self.rng.random() < self.decline_prob:
                    continue
                start, end = max(start, week_start), min(end, week_end)
                n_occ += 1
                distinct.add(idx)
                hours += (end - start).total_seconds() / 3600.0
                cell = int((start - week_start).total_seconds() // 3600)
                t = start
                while t < end:
                    nxt = min(week_start + timedelta(hours=cell + 1), end)
                    grid[cell] += (nxt - t).total_seconds() / 3600.0
                    t, cell = nxt, cell + 1
        return grid + [n_occ / 20.0, hours / 40.0, len(distinct) / 10.0]

    def __getitem__(self, user):
        events = parse_calendar(self.feeds[user])
        week = self.rng.randrange(self.num_weeks)
        week_start = self.first_week + timedelta(weeks=week)
        x = self._grid(events, self.homes[user], week_start, decline=True)
        y = self._grid(events, self.homes[user], week_start + timedelta(weeks=1), decline=False)
        return torch.tensor(x, dtype=torch.float32), torch.tensor(y[:HOURS], dtype=torch.float32), user


class ShuffledUsers(Sampler):
    def __init__(self, n, seed):
        self.n, self.seed, self.epoch = n, seed, 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        order = list(range(self.n))
        random.Random(self.seed * 1000 + self.epoch).shuffle(order)
        return iter(order)

    def __len__(self):
        return self.n


class LoadForecaster(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(HOURS + 3, hidden), nn.ReLU(), nn.Linear(hidden, HOURS))

    def forward(self, x):
        return self.net(x)


class Callback:
    def on_batch(self, trainer, batch): ...
    def on_step_end(self, trainer, loss): ...
    def on_train_end(self, trainer): ...


class MeterCallback(Callback):
    def __init__(self):
        self.meter = evalkit.Meter()

    def on_batch(self, trainer, batch):
        self.meter.batch(batch)

    def on_step_end(self, trainer, loss):
        self.meter.step(loss)
        if self.meter.done():
            trainer.should_stop = True

    def on_train_end(self, trainer):
        self.meter.report({"steps": trainer.step, "busy_hours_seen": round(trainer.busy_hours, 6)})


class PrintCallback(Callback):
    def __init__(self, every):
        self.every = every

    def on_step_end(self, trainer, loss):
        if trainer.step % self.every == 0:
            print(f"epoch {trainer.epoch} step {trainer.step} mse {loss.item():.5f}")


class Trainer:
    def __init__(self, model, loader, sampler, lr, epochs, callbacks):
        self.model, self.loader, self.sampler = model, loader, sampler
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.epochs, self.callbacks = epochs, callbacks
        self.step, self.epoch, self.busy_hours, self.should_stop = 0, 0, 0.0, False

    def fit(self):
        for self.epoch in range(self.epochs):
            self.sampler.set_epoch(self.epoch)
            for batch in self.loader:
                for cb in self.callbacks:
                    cb.on_batch(self, batch)
                x, y, _ = batch
                loss = nn.functional.mse_loss(self.model(x), y)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                self.step += 1
                self.busy_hours += float(y.sum())
                for cb in self.callbacks:
                    cb.on_step_end(self, loss)
                if self.should_stop:
                    break
            if self.should_stop:
                break
        for cb in self.callbacks:
            cb.on_train_end(self)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="calendar.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.set_num_threads(1)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    d = cfg["data"]
    first_week = datetime.strptime(d["first_week"], "%Y-%m-%d")
    gen = random.Random(seed)
    feeds = [generate_feed(gen, gen.randint(d["min_events"], d["max_events"]), first_week,
                           int(d["history_years"] * 365)) for _ in range(d["num_users"])]
    homes = [gen.choice(list(ZONES)) for _ in feeds]
    ds = CalendarLoadDataset(feeds, homes, first_week, d["num_weeks"], d["decline_prob"], seed + 1)
    sampler = ShuffledUsers(len(ds), seed)
    loader = DataLoader(ds, batch_size=cfg["loader"]["batch_size"], sampler=sampler,
                        num_workers=cfg["loader"]["num_workers"], drop_last=True)
    t = cfg["train"]
    trainer = Trainer(LoadForecaster(t["hidden"]), loader, sampler, t["lr"], t["epochs"],
                      [PrintCallback(t["log_every"]), MeterCallback()])
    trainer.fit()


if __name__ == "__main__":
    main()
