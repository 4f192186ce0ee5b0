"""Row -> feature vector. Everything a trip-duration model may know at pickup time."""
import csv
import math
from datetime import datetime

from tripdata import HEADER, TS_FORMAT
from zones import BOROUGHS, SERVICE_ZONES, find_zone

NUMERIC = ["passenger_count", "trip_distance", "fare_amount", "tolls_amount", "congestion_surcharge"]
DEFAULTS = {"passenger_count": 1.0, "RatecodeID": 1, "congestion_surcharge": 0.0}
PAYMENT_TYPES = {"1": 0, "2": 1, "3": 2, "4": 3}
COL = {name: i for i, name in enumerate(HEADER)}


def parse_line(line):
    return next(csv.reader([line]))


def _num(row, name):
    v = row[COL[name]]
    return float(v) if v != "" else float(DEFAULTS[name])


def one_hot(index, size):
    return [1.0 if i == index else 0.0 for i in range(size)]


def raw_features(row, zones):
    pickup = datetime.strptime(row[COL["tpep_pickup_datetime"]], TS_FORMAT)
    dropoff = datetime.strptime(row[COL["tpep_dropoff_datetime"]], TS_FORMAT)
    pu = find_zone(zones, row[COL["PULocationID"]])
    do = find_zone(zones, row[COL["DOLocationID"]])
    hour = pickup.hour + pickup.minute / 60.0
    numeric = [_num(row, name) for name in NUMERIC]
    numeric[1] = math.log1p(numeric[1])
    ratecode = row[COL["RatecodeID"]] or str(DEFAULTS["RatecodeID"])
    feats = {
        "numeric": numeric,
        "cyclic": [math.sin(2 * math.pi * hour / 24), math.cos(2 * math.pi * hour / 24),
                   math.sin(2 * math.pi * pickup.weekday() / 7), math.cos(2 * math.pi * pickup.weekday() / 7)],
        "flags": [1.0 if row[COL["store_and_fwd_flag"]] == "Y" else 0.0,
                  1.0 if ratecode == "2" else 0.0,
                  1.0 if row[COL["PULocationID"]] == row[COL["DOLocationID"]] else 0.0,
                  1.0 if row[COL["passenger_count"]] == "" else 0.0],
        "pu_borough": BOROUGHS.index(pu["Borough"]),
        "do_borough": BOROUGHS.index(do["Borough"]),
        "pu_service": SERVICE_ZONES.index(pu["service_zone"]),
        "payment": PAYMENT_TYPES.get(row[COL["payment_type"]], 3),
    }
    minutes = (dropoff - pickup).total_seconds() / 60.0
    return feats, math.log1p(minutes)


def encode(feats, stats):
    """Standardise the numeric block with the training statistics and append the one-hots."""
    num = [(v - m) / s for v, m, s in zip(feats["numeric"], stats["mean"], stats["std"])]
    return (num + feats["cyclic"] + feats["flags"]
            + one_hot(feats["pu_borough"], len(BOROUGHS)) + one_hot(feats["do_borough"], len(BOROUGHS))
            + one_hot(feats["pu_service"], len(SERVICE_ZONES)) + one_hot(feats["payment"], len(PAYMENT_TYPES)))


def column_stats(rows):
    cols = list(zip(*rows))
    mean = [sum(c) / len(c) for c in cols]
    std = [math.sqrt(sum((v - m) ** 2 for v in c) / len(c)) or 1.0 for c, m in zip(cols, mean)]
    return {"mean": mean, "std": std}
