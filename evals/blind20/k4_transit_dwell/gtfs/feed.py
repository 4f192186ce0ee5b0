"""A synthetic GTFS-like feed: stop_times rows as csv.DictReader would give them (all strings).

Times are service-day times "HH:MM:SS" that run past 24:00:00 for trips after midnight, and every
row carries the AVL-observed arrival ("" when the vehicle did not report).
"""
import random
from collections import namedtuple

BlockKey = namedtuple("BlockKey", "route_id direction_id service_date")


def format_gtfs_time(seconds):
    h, rem = divmod(int(seconds), 3600)
    m, s = divmod(rem, 60)
    return f"{h:02d}:{m:02d}:{s:02d}"


def generate_stop_times(seed, routes, directions, service_days, min_trips, max_trips, missing_rate):
    rng = random.Random(seed)
    rows = []
    route_stops = {r: rng.randint(24, 32) for r in range(routes)}
    for day in range(service_days):
        date = f"202601{day + 1:02d}"
        for r in range(routes):
            n_stops = route_stops[r]
            for d in range(directions):
                n_trips = rng.randint(min_trips, max_trips)
                evening = rng.random() < 0.4
                t_first = rng.randint(19 * 3600, 22 * 3600 + 1800) if evening else rng.randint(5 * 3600, 16 * 3600)
                headway = rng.choice([600, 720, 900, 1200, 1800])
                stops = [f"S{r:02d}{(s if d == 0 else n_stops - 1 - s):02d}" for s in range(n_stops)]
                for t in range(n_trips):
                    trip_id = f"R{r}_{'IO'[d]}_{date}_{t:02d}"
                    clock = t_first + t * headway + rng.randint(-90, 90)
                    delay = rng.randint(-60, 120)
                    for seq, stop_id in enumerate(stops, start=1):
                        arrival = clock
                        departure = arrival + rng.choice([0, 0, 15, 20, 30, 45, 60])
                        delay = max(-120, delay + rng.randint(-30, 45))
                        observed = "" if rng.random() < missing_rate else format_gtfs_time(arrival + delay)
                        rows.append({
                            "route_id": f"R{r}", "direction_id": str(d), "service_date": date,
                            "trip_id": trip_id, "stop_id": stop_id, "stop_sequence": str(seq),
                            "arrival_time": format_gtfs_time(arrival),
                            "departure_time": format_gtfs_time(departure),
                            "observed_arrival_time": observed,
                        })
                        clock = departure + rng.randint(60, 180)
    rng.shuffle(rows)          # feeds are not sorted; the loader must not rely on file order
    return rows
