"""Write a synthetic insurance-claims export (CSV, US-formatted amounts, ISO dates)."""
import csv
import datetime as dt
import os
import random

REGIONS = ["north", "south", "east", "west", "central"]
CHANNELS = ["agent", "online", "phone", "broker"]
PRODUCTS = ["auto", "home", "travel", "health", "pet", "boat"]


def write_claims(path, rows, seed):
    rng = random.Random(seed)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    start = dt.date(2019, 1, 1)
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["claim_id", "policy_start", "incident_date", "report_date", "region", "channel",
                    "product", "claim_amount", "premium", "age", "prior_claims", "fraud"])
        for i in range(rows):
            p0 = start + dt.timedelta(days=rng.randrange(0, 1200))
            inc = p0 + dt.timedelta(days=rng.randrange(1, 700))
            lag = rng.randrange(0, 90)
            rep = inc + dt.timedelta(days=lag)
            amount = round(rng.lognormvariate(7.5, 1.1), 2)
            premium = round(rng.uniform(200, 3000), 2)
            age = rng.randint(18, 85)
            prior = min(int(rng.expovariate(1.2)), 9)
            region, channel, product = rng.choice(REGIONS), rng.choice(CHANNELS), rng.choice(PRODUCTS)
            risk = (lag > 45) * 1.2 + ((inc - p0).days < 30) * 1.5 + (amount > 8000) * 1.0 \
                + 0.4 * prior + (channel == "online") * 0.5 - 2.8
            fraud = int(rng.random() < 1 / (1 + 2.718281828 ** (-risk)))
            w.writerow([f"C{i:06d}", p0.isoformat(), inc.isoformat(), rep.isoformat(), region, channel,
                        product, f"${amount:,.2f}", f"${premium:,.2f}", age, prior, fraud])
    os.replace(tmp, path)
