"""Synthetic card-transaction export: CSV text, sharded by merchant acquirer, not time-ordered."""
import io
import random
from datetime import datetime, timedelta

CATEGORIES = ["grocery", "fuel", "restaurant", "online_retail", "travel", "electronics", "pharmacy",
              "entertainment", "utilities", "atm", "gift_cards", "jewelry"]
COUNTRIES = ["US", "US", "US", "US", "CA", "GB", "MX", "FR", "DE", "NG", "RO", "BR"]
HEADER = "txn_id,user_id,timestamp,amount,merchant_category,country,is_fraud"


def synth_ledger(seed, n_users, n_txn, start, days, shards):
    rng = random.Random(seed)
    t0 = datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
    span = days * 86400
    activity = [rng.lognormvariate(0, 0.8) for _ in range(n_users)]
    home = [rng.choice(COUNTRIES[:6]) for _ in range(n_users)]
    typical = [rng.lognormvariate(3.2, 0.6) for _ in range(n_users)]
    rows = []
    while len(rows) < n_txn:
        user = rng.choices(range(n_users), weights=activity)[0]
        sec = rng.randrange(span)
        if rng.random() < 0.012:
            # card testing: a burst of small charges within a minute or two, then a big one
            burst = rng.randint(3, 9)
            for j in range(burst):
                rows.append([user, sec + rng.randint(0, 90), round(rng.uniform(0.5, 3.0), 2), "online_retail",
                             rng.choice(COUNTRIES[8:]), 1])
            rows.append([user, sec + rng.randint(60, 400), round(rng.uniform(300, 2500), 2),
                         rng.choice(["electronics", "gift_cards", "jewelry"]), rng.choice(COUNTRIES[8:]), 1])
            continue
        # daytime-heavy activity
        hour_shift = int(rng.gauss(0, 3) * 3600)
        sec = max(0, min(span - 1, sec - sec % 86400 + 14 * 3600 + hour_shift))
        amount = round(rng.lognormvariate(0, 0.7) * typical[user], 2)
        country = home[user] if rng.random() < 0.93 else rng.choice(COUNTRIES)
        fraud = 1 if (country != home[user] and amount > 3 * typical[user] and rng.random() < 0.5) else 0
        rows.append([user, sec, amount, rng.choice(CATEGORIES), country, fraud])
    rows = rows[:n_txn]
    # Each shard is time-ordered on its own; the export concatenates the shards.
    out = io.StringIO()
    out.write(HEADER + "\n")
    txn = 100000
    for s in range(shards):
        shard = sorted(rows[s::shards], key=lambda r: r[1])
        for user, sec, amount, cat, country, fraud in shard:
            ts = (t0 + timedelta(seconds=sec)).strftime("%Y-%m-%d %H:%M:%S")
            out.write(f"T{txn},U{user:05d},{ts},{amount:.2f},{cat},{country},{fraud}\n")
            txn += rng.randint(1, 3)
    return out.getvalue()
