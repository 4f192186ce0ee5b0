"""Synthetic marketplace export: one JSON object per line, as the order service writes them."""
import json
import random
from datetime import datetime, timedelta, timezone

from .features import CATEGORIES

SUBCATS = ["Accessories", "Cookware", "Shoes", "Skincare", "Outdoor", "Puzzles", "Fiction", "Snacks",
           "Tools", "Parts", "Food", "Paper", "Audio", "Lighting"]
CURRENCIES = {"USD": "1", "EUR": "1.08", "GBP": "1.27", "JPY": "0.0067", "CAD": "0.74", "SEK": "0.095"}
TZ = [timezone.utc, timezone(timedelta(hours=1)), timezone(timedelta(hours=-5)), timezone(timedelta(hours=9)),
      timezone(timedelta(hours=5, minutes=30))]


def rates_csv(seed, days=120):
    rng = random.Random(seed)
    lines = ["date,currency,rate"]
    start = datetime(2024, 1, 1)
    for cur, base in CURRENCIES.items():
        if cur == "USD":
            continue
        value = float(base)
        for d in range(0, days, rng.choice([1, 1, 2, 3])):
            value *= 1.0 + rng.gauss(0, 0.004)
            lines.append(f"{(start + timedelta(days=d)).date().isoformat()},{cur},{value:.6f}")
    return "\n".join(lines) + "\n"


def _item(rng, depth=0):
    if depth < 2 and rng.random() < 0.08:
        return {"sku": f"BDL-{rng.randint(1000, 9999)}", "category": "Bundle",
                "items": [_item(rng, depth + 1) for _ in range(rng.randint(2, 4))]}
    cat = rng.choice(CATEGORIES)
    cat = cat.upper() if rng.random() < 0.05 else cat
    price = round(rng.lognormvariate(3.0, 1.0), 2)
    item = {"sku": f"{cat[:2].upper()}-{rng.randint(10000, 99999)}",
            "category": f"{cat} > {rng.choice(SUBCATS)} > {rng.choice(SUBCATS)}",
            "unit_price": f"{price:.2f}", "qty": rng.choice([1, 1, 1, 2, 2, 3, 5])}
    if rng.random() < 0.25:
        item["discounts"] = [{"code": rng.choice(["SPRING10", "VIP", "BUNDLE5", "FREESHIP"]),
                              "amount": f"{price * rng.uniform(0.05, 0.3):.2f}"}
                             for _ in range(rng.randint(1, 2))]
    return item


def generate_order_lines(n, seed):
    rng = random.Random(seed)
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    lines = []
    for k in range(n):
        created = (start + timedelta(seconds=rng.randint(0, 110 * 86400))).astimezone(rng.choice(TZ))
        items = [_item(rng) for _ in range(rng.randint(2, 14))]
        n_items = sum(len(i.get("items", [])) or 1 for i in items)
        risk = 0.1 + 0.3 * any("Fashion" in i.get("category", "") for i in items) + 0.02 * n_items
        order = {
            "order_id": f"ORD-2024-{k:07d}",
            "created_at": created.isoformat(timespec="seconds"),
            "customer": {"id": f"C{rng.randint(1, 4000):05d}", "country": rng.choice(["US", "DE", "GB", "JP", "CA", "SE"]),
                         "segment": rng.choice(["b2c", "b2c", "b2c", "b2b"])},
            "currency": rng.choice(list(CURRENCIES)),
            "items": items,
            "shipping": {"method": rng.choice(["standard", "express", "pickup"]),
                         "cost": f"{rng.choice([0, 4.99, 9.99, 14.5]):.2f}"},
            "returned": rng.random() < min(risk, 0.9),
        }
        lines.append(json.dumps(order, separators=(",", ":")))
    return lines
