"""Synthetic yellow-taxi trip records, kept as CSV text lines like a month file read into memory."""
import csv
import io
import math
import random
from datetime import datetime, timedelta

HEADER = ["VendorID", "tpep_pickup_datetime", "tpep_dropoff_datetime", "passenger_count",
          "trip_distance", "RatecodeID", "store_and_fwd_flag", "PULocationID", "DOLocationID",
          "payment_type", "fare_amount", "extra", "mta_tax", "tip_amount", "tolls_amount",
          "total_amount", "congestion_surcharge"]

TS_FORMAT = "%Y-%m-%d %H:%M:%S"


def make_trip_lines(zones, num_trips, missing_rate, seed):
    rng = random.Random(seed)
    t0 = datetime(2023, 3, 1)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(HEADER)
    for _ in range(num_trips):
        pu = rng.choice(zones[1:])
        do = rng.choice(zones[1:]) if rng.random() < 0.6 else pu
        pickup = t0 + timedelta(seconds=rng.randrange(31 * 24 * 3600))
        hour = pickup.hour
        rush = 1.6 if hour in (7, 8, 9, 16, 17, 18, 19) else 1.0
        weekend = 0.85 if pickup.weekday() >= 5 else 1.0
        dist = math.hypot(pu["x"] - do["x"], pu["y"] - do["y"]) * 0.35 + rng.expovariate(1.2) + 0.2
        speed = rng.uniform(7, 14) / (rush * weekend) if pu["Borough"] == "Manhattan" else rng.uniform(12, 24) / rush
        minutes = max(1.0, dist / speed * 60 + rng.gauss(3, 2))
        dropoff = pickup + timedelta(seconds=int(minutes * 60))
        ratecode = 2 if pu["service_zone"] == "Airports" and rng.random() < 0.4 else 1
        fare = round(3.0 + 2.5 * dist + 0.5 * minutes, 2)
        payment = rng.choices([1, 2, 3, 4], weights=[70, 25, 3, 2])[0]
        tip = round(fare * rng.choice([0.15, 0.2, 0.25, 0.1]), 2) if payment == 1 else 0.0
        tolls = 6.55 if rng.random() < 0.05 else 0.0
        congestion = 2.5 if pu["Borough"] == "Manhattan" else 0.0
        total = round(fare + 0.5 + 0.5 + tip + tolls + congestion, 2)
        row = [rng.choice([1, 2]), pickup.strftime(TS_FORMAT), dropoff.strftime(TS_FORMAT),
               rng.choices([1, 2, 3, 4, 5, 6], weights=[70, 15, 5, 3, 4, 3])[0], f"{dist:.2f}",
               ratecode, rng.choice(["N"] * 30 + ["Y"]), pu["LocationID"], do["LocationID"],
               payment, f"{fare:.2f}", "0.5", "0.5", f"{tip:.2f}", f"{tolls:.2f}", f"{total:.2f}",
               f"{congestion:.1f}"]
        # the real files have blanks in passenger_count / RatecodeID / congestion_surcharge
        for col in (3, 5, 16):
            if rng.random() < missing_rate:
                row[col] = ""
        writer.writerow(row)
    return buf.getvalue().splitlines()
