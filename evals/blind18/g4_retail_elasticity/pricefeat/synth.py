"""Synthetic POS exports: a price-change log and a daily sales log per SKU, as CSV text."""
import datetime as dt
import math

import numpy as np

PRICE_HEADER = "effective_date,sku,store,price,regular_price,promo_type"
SALES_HEADER = "date,sku,units"


def synth_catalog(n_skus, start, days, seed):
    rng = np.random.default_rng(seed)
    start = dt.date.fromisoformat(start)
    catalog = []
    for k in range(n_skus):
        sku = f"SKU-{10000 + 37 * k:06d}"
        regular = round(float(rng.uniform(1.5, 25.0)), 2)
        elasticity = float(rng.uniform(0.8, 3.0))
        base = float(rng.uniform(3.0, 40.0))
        rows, daily = [], []
        day, price, promo = 0, regular, "NONE"
        rows.append((0, price, regular, promo))
        next_regular = int(rng.integers(40, 120))
        while day < days:
            if day == next_regular:
                regular = round(regular * float(rng.uniform(0.95, 1.12)), 2)
                price, promo = regular, "NONE"
                rows.append((day, price, regular, promo))
                next_regular += int(rng.integers(40, 120))
            elif promo == "NONE" and rng.random() < 0.04:
                depth = float(rng.choice([0.1, 0.15, 0.2, 0.25, 0.3, 0.4]))
                price, promo = round(regular * (1 - depth), 2), str(rng.choice(["TPR", "BOGO", "CIRCULAR"]))
                rows.append((day, price, regular, promo))
                if rng.random() < 0.15:  # keyed wrong, corrected the same day
                    price = round(price - 0.1, 2)
                    rows.append((day, price, regular, promo))
            elif promo != "NONE" and rng.random() < 0.15:
                price, promo = regular, "NONE"
                rows.append((day, price, regular, promo))
            season = 1.0 + 0.25 * math.sin(2 * math.pi * (day % 7) / 7.0)
            lam = base * season * (price / regular) ** (-elasticity)
            units = int(rng.poisson(lam))
            if units:  # zero-sale days are missing from the export
                daily.append((day, units))
            day += 1
        # the log is appended by several store systems: locally out of order
        order = np.argsort(np.arange(len(rows)) + rng.uniform(0, 2.5, len(rows)), kind="stable")
        price_lines = [PRICE_HEADER]
        for i in order:
            d, p, r, kind = rows[i]
            date = (start + dt.timedelta(days=d)).strftime("%Y-%m-%d")
            price_lines.append(f"{date},{sku},STORE-014,{p:.2f},{r:.2f},{kind}")
        sales_lines = [SALES_HEADER] + [
            f"{(start + dt.timedelta(days=d)).strftime('%m/%d/%Y')},{sku},{u}" for d, u in daily]
        catalog.append({"sku": sku, "price_csv": "\n".join(price_lines) + "\n",
                        "sales_csv": "\n".join(sales_lines) + "\n"})
    return catalog
