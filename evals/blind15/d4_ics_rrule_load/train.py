"""Predict next week's meeting load from a user's iCalendar feed.

Each sample is one calendar and a random week: the ICS text is unfolded and parsed, recurring
events are expanded (weekly BYDAY, monthly BYMONTHDAY / nth-weekday, INTERVAL, COUNT/UNTIL, EXDATE)
in the event's own time zone, converted to UTC, and turned into an hour-by-hour busy grid.

    python train.py --config calendar.ini
"""
import argparse
import bisect
import configparser
import datetime as dt
import random
import re

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Sampler

import evalkit

UTC = dt.timezone.utc
WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

# ---------------------------------------------------------------------------------------------- tz


def _nth_sunday(year, month, n):
    """n-th Sunday of the month (n = -1: the last one)."""
    if n > 0:
        d = dt.date(year, month, 1)
        while d.weekday() != 6:
            d += dt.timedelta(days=1)
        return d + dt.timedelta(weeks=n - 1)
    d = dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1)
    while d.weekday() != 6:
        d -= dt.timedelta(days=1)
    return d


def utc_offset_minutes(tzid, local):
    """Offset of a naive local time in the zones our tenants use (EU and US DST rules)."""
    if tzid in ("Europe/Berlin", "Europe/Paris", "Europe/Madrid"):
        start = dt.datetime.combine(_nth_sunday(local.year, 3, -1), dt.time(2))
        end = dt.datetime.combine(_nth_sunday(local.year, 10, -1), dt.time(3))
        return 120 if start <= local < end else 60
    if tzid in ("America/New_York", "America/Chicago"):
        base = -300 if tzid == "America/New_York" else -360
        start = dt.datetime.combine(_nth_sunday(local.year, 3, 2), dt.time(2))
        end = dt.datetime.combine(_nth_sunday(local.year, 11, 1), dt.time(2))
        return base + 60 if start <= local < end else base
    if tzid == "Asia/Tokyo":
        return 540
    return 0


def to_utc(local, tzid):
    return (local - dt.timedelta(minutes=utc_offset_minutes(tzid, local))).replace(tzinfo=UTC)


# ------------------------------------------------------------------------------------- ICS writer

ZONES = ["Europe/Berlin", "Europe/Paris", "America/New_York", "America/Chicago", "Asia/Tokyo"]
TOPICS = ["Sprint planning", "1:1", "Design review", "Customer call", "Standup", "Budget, forecast; Q3",
          "Hiring loop", "Architecture sync", "Lunch & learn", "Board prep", "Incident retro"]


def fold(line):
    """RFC 5545 folding: 75 octets per line, continuation lines start with a space."""
    raw = line.encode()
    if len(raw) <= 75:
        return line
    parts, cut = [], 75
    while raw:
        parts.append(raw[:cut].decode(errors="ignore"))
        raw, cut = raw[cut:], 74
    return "\r\n ".join(parts)


def ics_escape(text):
    return text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def make_calendar(rng, start, weeks, n_events):
    tz = rng.choice(ZONES)
    out = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Acme//Groupware 9.1//EN", f"X-WR-TIMEZONE:{tz}"]
    for k in range(n_events):
        day = start + dt.timedelta(days=rng.randrange(weeks * 7 // 2))
        begin = dt.datetime.combine(day, dt.time(rng.randrange(7, 18), rng.choice([0, 15, 30, 45])))
        ev_tz = tz if rng.random() < 0.85 else rng.choice(ZONES)
        lines = ["BEGIN:VEVENT", f"UID:{rng.getrandbits(64):016x}-{k}@acme.example",
                 f"DTSTAMP:20231215T{rng.randrange(24):02d}0000Z",
                 f"DTSTART;TZID={ev_tz}:{begin:%Y%m%dT%H%M%S}"]
        minutes = rng.choice([15, 30, 45, 60, 60, 90, 120])
        if rng.random() < 0.5:
            lines.append(f"DTEND;TZID={ev_tz}:{begin + dt.timedelta(minutes=minutes):%Y%m%dT%H%M%S}")
        else:
            h, m = divmod(minutes, 60)
            lines.append("DURATION:PT" + (f"{h}H" if h else "") + (f"{m}M" if m else ""))
        kind = rng.random()
        if kind < 0.45:
            days = sorted(rng.sample(range(5), rng.randint(1, 3)))
            rule = f"FREQ=WEEKLY;BYDAY={','.join(WEEKDAYS[d] for d in days)}"
            if rng.random() < 0.3:
                rule += ";INTERVAL=2"
            rule += f";COUNT={rng.randint(4, 40)}" if rng.random() < 0.5 else \
                f";UNTIL={(begin + dt.timedelta(days=rng.randint(30, 200))):%Y%m%dT235959Z}"
            lines.append("RRULE:" + rule)
            if rng.random() < 0.4:
                skip = begin + dt.timedelta(weeks=rng.randint(1, 6))
                lines.append(f"EXDATE;TZID={ev_tz}:{skip:%Y%m%dT%H%M%S}")
        elif kind < 0.65:
            if rng.random() < 0.5:
                rule = f"FREQ=MONTHLY;BYMONTHDAY={begin.day}"
            else:
                rule = f"FREQ=MONTHLY;BYDAY={(begin.day - 1) // 7 + 1}{WEEKDAYS[begin.weekday()]}"
            lines.append("RRULE:" + rule + f";COUNT={rng.randint(2, 7)}")
        summary = rng.choice(TOPICS) + (" - " + " ".join(rng.choice(TOPICS) for _ in range(rng.randint(1, 5))))
        lines.append("SUMMARY:" + ics_escape(summary))
        if rng.random() < 0.5:
            lines.append("DESCRIPTION:" + ics_escape("Agenda:\n" + "\n".join(
                f"- {rng.choice(TOPICS)}" for _ in range(rng.randint(1, 6)))))
        lines.append("END:VEVENT")
        out.extend(fold(line) for line in lines)
    out.append("END:VCALENDAR")
    return "\r\n".join(out) + "\r\n"


# ------------------------------------------------------------------------------------- ICS reader

PROP_RE = re.compile(r'^(?P<name>[A-Za-z0-9-]+)(?P<params>(?:;[A-Za-z0-9-]+=(?:"[^"]*"|[^";:,]*))*):(?P<value>.*)$')
DURATION_RE = re.compile(r"^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$")


def unfold(text):
    lines = []
    for line in text.split("\r\n"):
        if line[:1] in (" ", "\t") and lines:
            lines[-1] += line[1:]
        elif line:
            lines.append(line)
    return lines


def parse_props(line):
    m = PROP_RE.match(line)
    if m is None:
        return None
    params = {}
    for chunk in m.group("params").split(";")[1:]:
        key, _, val = chunk.partition("=")
        params[key.upper()] = val.strip('"')
    return m.group("name").upper(), params, m.group("value")


def parse_datetime(value, params, default_tz):
    if params.get("VALUE") == "DATE" or len(value) == 8:
        return None, None
    if value.endswith("Z"):
        return dt.datetime.strptime(value[:-1], "%Y%m%dT%H%M%S"), "UTC"
    return dt.datetime.strptime(value, "%Y%m%dT%H%M%S"), params.get("TZID", default_tz)


def parse_duration(value):
    m = DURATION_RE.match(value)
    w, d, h, mi, s = (int(g) if g else 0 for g in m.groups()[1:])
    return dt.timedelta(weeks=w, days=d, hours=h, minutes=mi, seconds=s)


def parse_calendar(text):
    events, current, default_tz = [], None, "UTC"
    for line in unfold(text):
        prop = parse_props(line)
        if prop is None:
            continue
        name, params, value = prop
        if name == "X-WR-TIMEZONE":
            default_tz = value
        elif name == "BEGIN" and value == "VEVENT":
            current = {"exdates": set()}
        elif name == "END" and value == "VEVENT":
            if current.get("start") is not None:
                events.append(current)
            current = None
        elif current is not None:
            if name == "DTSTART":
                current["start"], current["tzid"] = parse_datetime(value, params, default_tz)
            elif name == "DTEND":
                current["end"], _ = parse_datetime(value, params, default_tz)
            elif name == "DURATION":
                current["duration"] = parse_duration(value)
            elif name == "RRULE":
                current["rrule"] = dict(part.split("=", 1) for part in value.split(";"))
            elif name == "EXDATE":
                for v in value.split(","):
                    current["exdates"].add(parse_datetime(v, params, default_tz)[0])
            elif name == "SUMMARY":
                current["summary"] = re.sub(r"\\([\\;,nN])", lambda m: "\n" if m.group(1) in "nN" else m.group(1), value)
    return events


def _add_months(d, n):
    y, m = divmod(d.month - 1 + n, 12)
    return d.year + y, m + 1


def _month_day(year, month, day=None, nth=None, weekday=None):
    if day is not None:
        try:
            return dt.date(year, month, day)
        except ValueError:
            return None  # e.g. BYMONTHDAY=31 in April: no instance
    d = dt.date(year, month, 1)
    d += dt.timedelta(days=(weekday - d.weekday()) % 7 + 7 * (nth - 1))
    return d if d.month == month else None


def expand(event, horizon_end):
    """Local start times of every instance before horizon_end (local naive)."""
    start = event["start"]
    rule = event.get("rrule")
    if rule is None:
        return [start]
    count = int(rule["COUNT"]) if "COUNT" in rule else None
    until = dt.datetime.strptime(rule["UNTIL"].rstrip("Z"), "%Y%m%dT%H%M%S") if "UNTIL" in rule else None
    interval = int(rule.get("INTERVAL", "1"))
    out, emitted = [], 0
    if rule["FREQ"] == "WEEKLY":
        days = {WEEKDAYS.index(d) for d in rule.get("BYDAY", WEEKDAYS[start.weekday()]).split(",")}
        week0 = start.date() - dt.timedelta(days=start.weekday())
        day = start.date()
        while True:
            cand = dt.datetime.combine(day, start.time())
            if cand >= horizon_end or (count is not None and emitted >= count):
                break
            if until is not None and to_utc(cand, event["tzid"]).replace(tzinfo=None) > until:
                break
            if day.weekday() in days and ((day - week0).days // 7) % interval == 0:
                emitted += 1  # EXDATEs still count towards COUNT
                if cand not in event["exdates"]:
                    out.append(cand)
            day += dt.timedelta(days=1)
    elif rule["FREQ"] == "MONTHLY":
        byday = rule.get("BYDAY")
        k = 0
        while count is None or emitted < count:
            year, month = _add_months(start, k * interval)
            if byday:
                d = _month_day(year, month, nth=int(byday[:-2]), weekday=WEEKDAYS.index(byday[-2:]))
            else:
                d = _month_day(year, month, day=int(rule.get("BYMONTHDAY", start.day)))
            k += 1
            if d is None:
                continue
            cand = dt.datetime.combine(d, start.time())
            if cand >= horizon_end:
                break
            if cand < start:
                continue
            emitted += 1
            if cand not in event["exdates"]:
                out.append(cand)
    return out


def busy_intervals(text, horizon_end):
    """Sorted (start, end) UTC minute offsets from 2024-01-01T00:00Z of every instance."""
    epoch = dt.datetime(2024, 1, 1, tzinfo=UTC)
    spans = []
    for ev in parse_calendar(text):
        if "duration" in ev:
            length = ev["duration"]
        elif ev.get("end") is not None:
            length = ev["end"] - ev["start"]
        else:
            length = dt.timedelta(0)
        for local in expand(ev, horizon_end):
            begin = to_utc(local, ev["tzid"])
            end = to_utc(local + length, ev["tzid"])
            spans.append((int((begin - epoch).total_seconds()) // 60, int((end - epoch).total_seconds()) // 60))
    spans.sort()
    return spans


def week_grid(spans, week):
    """Busy minutes per UTC hour of the given week (168 bins), and how many instances start in it."""
    lo, hi = week * 7 * 1440, (week + 1) * 7 * 1440
    grid = [0] * 168
    starts = 0
    for begin, end in spans:
        if end <= lo or begin >= hi:
            continue
        starts += lo <= begin < hi
        t = max(begin, lo)
        while t < min(end, hi):
            hour = (t - lo) // 60
            step = min(end, hi, lo + (hour + 1) * 60) - t
            grid[hour] += step
            t += step
    return grid, starts


# ------------------------------------------------------------------------------------ data / model


class CalendarLoad(Dataset):
    def __init__(self, feeds, horizon_start, weeks, seed):
        self.feeds = feeds
        self.weeks = weeks
        self.horizon_end = dt.datetime.combine(horizon_start, dt.time()) + dt.timedelta(weeks=weeks)
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.feeds)

    def __getitem__(self, idx):
        spans = busy_intervals(self.feeds[idx], self.horizon_end)
        week = self.rng.randrange(1, self.weeks - 1)
        grid, n_this = week_grid(spans, week)
        prev, n_prev = week_grid(spans, week - 1)
        nxt, _ = week_grid(spans, week + 1)
        x = torch.tensor(grid, dtype=torch.float32) / 60.0
        stats = torch.tensor([sum(grid) / 2400.0, sum(prev) / 2400.0, n_this / 20.0, n_prev / 20.0,
                              week / self.weeks], dtype=torch.float32)
        y = torch.tensor(sum(nxt) / 2400.0, dtype=torch.float32)
        return x, stats, y


class CycleSampler(Sampler):
    """Fixed number of draws per epoch from reshuffled passes over the calendars."""

    def __init__(self, n, samples_per_epoch, generator):
        self.n, self.samples, self.generator = n, samples_per_epoch, generator

    def __len__(self):
        return self.samples

    def __iter__(self):
        emitted = 0
        while emitted < self.samples:
            for i in torch.randperm(self.n, generator=self.generator).tolist():
                if emitted == self.samples:
                    return
                yield i
                emitted += 1


class LoadRegressor(nn.Module):
    def __init__(self, hidden=48):
        super().__init__()
        self.day = nn.Conv1d(1, 8, 24, stride=24)
        self.mlp = nn.Sequential(nn.Linear(8 * 7 + 5, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, grid, stats):
        h = F.relu(self.day(grid.unsqueeze(1))).flatten(1)
        return self.mlp(torch.cat([h, stats], 1)).squeeze(-1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="calendar.ini")
    cfg = configparser.ConfigParser()
    cfg.read(parser.parse_args().config)
    seed = cfg.getint("run", "seed")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    d = cfg["data"]
    start = dt.date.fromisoformat(d["horizon_start"])
    weeks = d.getint("horizon_weeks")
    gen = random.Random(seed)
    feeds = [make_calendar(gen, start, weeks, gen.randint(d.getint("min_events"), d.getint("max_events")))
             for _ in range(d.getint("calendars"))]
    dataset = CalendarLoad(feeds, start, weeks, seed + 1)
    ld = cfg["loader"]
    sampler = CycleSampler(len(dataset), ld.getint("samples_per_epoch"), torch.Generator().manual_seed(seed + 2))
    loader = DataLoader(dataset, batch_size=ld.getint("batch_size"), sampler=sampler,
                        num_workers=ld.getint("num_workers"))

    model = LoadRegressor()
    opt = torch.optim.Adam(model.parameters(), lr=cfg.getfloat("optim", "lr"))
    meter = evalkit.Meter()
    epoch_losses = []
    for epoch in range(cfg.getint("run", "epochs")):
        total = 0.0
        for i, batch in enumerate(loader):
            meter.batch(batch)
            grid, stats, target = batch
            loss = F.smooth_l1_loss(model(grid, stats), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            total += loss.item()
            if meter.done():
                break
        epoch_losses.append(round(total / (i + 1), 6))
        print(f"epoch {epoch}: mean loss {epoch_losses[-1]}", flush=True)
        if meter.done():
            break
    meter.report({"epoch_mean_loss": epoch_losses})


if __name__ == "__main__":
    main()
