"""Synthetic airline operations export: one CSV row per flight leg, local times + UTC offsets."""
import csv
import io
import random
from datetime import datetime, timedelta

# Standard offsets in minutes; some carriers' exports apply a +60 DST shift per record.
AIRPORT_OFFSETS = [-480, -420, -360, -300, -240, -210, 0, 0, 60, 60, 120, 180, 240, 330, 345,
                   420, 480, 540, 570, 600]
FIELDS = ["flight_no", "tail", "origin", "dest", "sched_dep", "sched_arr", "actual_dep",
          "actual_arr", "dep_utc_offset", "arr_utc_offset"]
FMT = "%Y-%m-%d %H:%M"


def _local(utc, offset_min):
    return (utc + timedelta(minutes=offset_min)).strftime(FMT)


def generate_ops_csv(num_tails, days, legs_per_day, num_airports, seed):
    rng = random.Random(seed)
    airports = [f"A{i:02d}" for i in range(num_airports)]
    dst = [rng.random() < 0.4 for _ in range(num_airports)]
    offsets = [AIRPORT_OFFSETS[i % len(AIRPORT_OFFSETS)] + (60 if dst[i] else 0) for i in range(num_airports)]
    block = {}
    for i in range(num_airports):
        for j in range(num_airports):
            if i < j:
                block[i, j] = block[j, i] = rng.randint(45, 330)
    rows = []
    start = datetime(2024, 3, 4, 5, 0)
    for t in range(num_tails):
        tail = f"N{100 + t}{'ABCDEFGHJK'[t % 10]}"
        where = rng.randrange(num_airports)
        prev_arr_actual = None
        for d in range(days):
            sched_dep = start + timedelta(days=d, minutes=rng.randint(0, 180))
            for _ in range(legs_per_day):
                dest = rng.choice([a for a in range(num_airports) if a != where])
                sched_arr = sched_dep + timedelta(minutes=block[where, dest])
                ready = sched_dep if prev_arr_actual is None else max(sched_dep, prev_arr_actual + timedelta(minutes=30))
                dep_delay = int(rng.expovariate(1 / 9.0)) if rng.random() < 0.7 else 0
                actual_dep = ready + timedelta(minutes=dep_delay)
                actual_arr = actual_dep + timedelta(minutes=block[where, dest] + rng.randint(-12, 15))
                rows.append({
                    "flight_no": f"XY{rng.randint(100, 9999)}", "tail": tail,
                    "origin": airports[where], "dest": airports[dest],
                    "sched_dep": _local(sched_dep, offsets[where]), "sched_arr": _local(sched_arr, offsets[dest]),
                    "actual_dep": _local(actual_dep, offsets[where]), "actual_arr": _local(actual_arr, offsets[dest]),
                    "dep_utc_offset": str(offsets[where]), "arr_utc_offset": str(offsets[dest]),
                })
                prev_arr_actual = actual_arr
                where = dest
                sched_dep = sched_arr + timedelta(minutes=rng.randint(35, 95))
    rng.shuffle(rows)  # exports come ordered by flight number / load time, not by aircraft
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=FIELDS)
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue(), airports
