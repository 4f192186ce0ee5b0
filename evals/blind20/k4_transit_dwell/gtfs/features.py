"""Per-block (route, direction, service day) stop-level features: dwell, headway and lateness."""
from collections import defaultdict


def parse_gtfs_time(value):
    """'HH:MM:SS' to seconds after the service day's start; hours may be 24 or more."""
    h, m, s = value.strip().split(":")
    return int(h) * 3600 + int(m) * 60 + int(s)


def previous_departure(rows, stop_id, trip_id, before):
    """Latest departure at ``stop_id`` by another trip strictly before ``before`` (None if none)."""
    best = None
    for other in rows:
        if other["stop_id"] != stop_id or other["trip_id"] == trip_id:
            continue
        dep = parse_gtfs_time(other["departure_time"])
        if dep < before and (best is None or dep > best):
            best = dep
    return best


def block_features(rows):
    """One record per stop_time row, trips in order of first departure, stops in sequence order."""
    by_trip = defaultdict(list)
    for row in rows:
        by_trip[row["trip_id"]].append(row)
    for trip_rows in by_trip.values():
        trip_rows.sort(key=lambda r: int(r["stop_sequence"]))
    trip_order = sorted(by_trip, key=lambda t: (parse_gtfs_time(by_trip[t][0]["departure_time"]), t))

    records = []
    for trip_index, trip_id in enumerate(trip_order):
        prev_late = None
        for row in by_trip[trip_id]:
            arrival = parse_gtfs_time(row["arrival_time"])
            departure = parse_gtfs_time(row["departure_time"])
            observed = row["observed_arrival_time"]
            late = parse_gtfs_time(observed) - arrival if observed else None
            prev_dep = previous_departure(rows, row["stop_id"], trip_id, departure)
            records.append({
                "trip": trip_index,
                "seq": int(row["stop_sequence"]),
                "time_of_day": arrival % 86400,
                "after_midnight": arrival >= 86400,
                "dwell": departure - arrival,
                "headway": None if prev_dep is None else departure - prev_dep,
                "prev_late": prev_late,
                "late": late,
            })
            if late is not None:
                prev_late = late
    return records
