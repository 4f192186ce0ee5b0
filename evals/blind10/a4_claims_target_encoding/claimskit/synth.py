"""Claims as the export gives them: CSV text, currencies with symbols and thousands separators,
percentages, three date formats, blanks for missing values."""
import csv
import io
import math
from datetime import date, timedelta

import numpy as np

COLUMNS = ["claim_id", "policy_type", "region", "vehicle_make", "agent_code", "zip3", "body_shop",
           "claim_amount", "deductible", "coinsurance", "premium", "policy_start", "incident_date",
           "report_date", "paid_amount"]
POLICY_TYPES = ["COMP", "COLL", "LIAB", "PIP", "UM"]
REGIONS = ["NE", "SE", "MW", "SW", "W", "NW"]
MAKES = ["Toyota", "Ford", "Honda", "Chevrolet", "Nissan", "BMW", "Tesla", "Kia", "Subaru", "VW", "Mazda", "Audi"]


def _money(rng, x):
    style = rng.random()
    if style < 0.6:
        return f"${x:,.2f}"
    if style < 0.85:
        return f"USD {x:,.2f}"
    return f"{x:.2f}"


def _date(rng, d):
    style = rng.random()
    if style < 0.5:
        return d.isoformat()
    if style < 0.8:
        return d.strftime("%m/%d/%Y")
    return d.strftime("%d %b %Y")


def generate_claims_csv(n_rows, seed, start_id=0):
    """Return the lines of a CSV export (header first)."""
    rng = np.random.default_rng(seed)
    agents = [f"AG{i:04d}" for i in range(400)]
    agent_w = 1.0 / np.arange(1, 401) ** 0.8
    agent_w /= agent_w.sum()
    zips = [f"{z:03d}" for z in rng.choice(1000, 300, replace=False)]
    shops = [f"BS-{i:03d}" for i in range(150)]
    make_effect = {m: rng.normal(0, 0.3) for m in MAKES}
    region_effect = {r: rng.normal(0, 0.2) for r in REGIONS}
    agent_effect = rng.normal(0, 0.25, len(agents))
    shop_effect = rng.normal(0, 0.2, len(shops))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(COLUMNS)
    agent_draws = rng.choice(len(agents), size=n_rows, p=agent_w).tolist()
    for i in range(n_rows):
        ptype = POLICY_TYPES[int(rng.integers(len(POLICY_TYPES)))]
        region = REGIONS[int(rng.integers(len(REGIONS)))]
        make = MAKES[int(rng.integers(len(MAKES)))]
        a = agent_draws[i]
        shop = int(rng.integers(len(shops)))
        claim = float(np.exp(rng.normal(8.2, 1.0)))
        deductible = float(rng.choice([250.0, 500.0, 1000.0, 2500.0]))
        coins = float(rng.choice([0.0, 10.0, 20.0, 30.0]))
        premium = float(np.exp(rng.normal(7.0, 0.4)))
        start = date(2018, 1, 1) + timedelta(days=int(rng.integers(0, 1800)))
        incident = start + timedelta(days=int(rng.integers(1, 365)))
        report = incident + timedelta(days=int(rng.exponential(6.0)))
        lag = (report - incident).days
        mu = (math.log(max(claim - deductible, 1.0)) + math.log1p(-coins / 100.0) + make_effect[make]
              + region_effect[region] + agent_effect[a] + shop_effect[shop] - 0.01 * lag)
        paid = float(np.exp(mu + rng.normal(0, 0.35)))
        row = [f"CLM{start_id + i:07d}", ptype, region, make, agents[a], zips[int(rng.integers(len(zips)))],
               shops[shop], _money(rng, claim), _money(rng, deductible), f"{coins:g}%", _money(rng, premium),
               _date(rng, start), _date(rng, incident), _date(rng, report), _money(rng, paid)]
        for j in (3, 6, 10):  # make, body shop, premium are sometimes blank
            if rng.random() < 0.04:
                row[j] = ""
        writer.writerow(row)
    return buf.getvalue().splitlines()
