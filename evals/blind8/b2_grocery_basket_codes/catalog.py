"""Synthetic Instacart-style catalogue and order export.

Records look like rows joined from products.csv / aisles.csv / departments.csv / orders.csv:
product *names* (strings) per order, the aisle name per product, the department name per aisle.
"""
import random

ADJ = ["organic", "fresh", "frozen", "lowfat", "classic", "spicy", "sweet", "wholegrain",
       "greek", "smoked", "unsweetened", "family", "mini", "extra", "lite", "roasted"]
NOUN = ["banana", "yogurt", "milk", "bread", "salsa", "chips", "coffee", "tea", "pasta", "rice",
        "cheese", "spinach", "apples", "eggs", "butter", "cereal", "soup", "beans", "tofu", "hummus",
        "juice", "water", "crackers", "cookies", "granola", "oats", "chicken", "salmon", "avocado"]
DOW = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]


def build_catalog(cfg, seed):
    rng = random.Random(seed)
    departments = [f"dept_{k:02d}" for k in range(cfg["n_departments"])]
    aisles = [{"aisle": f"aisle_{k:03d}", "department": departments[k % len(departments)]}
              for k in range(cfg["n_aisles"])]
    rows = []
    for pid in range(cfg["n_products"]):
        name = f"{rng.choice(ADJ)} {rng.choice(NOUN)} {rng.randrange(10, 1000)}"
        rows.append({"product_id": pid + 1, "name": name, "aisle": rng.choice(aisles)["aisle"]})
    # re-listed products: the export repeats a name under a newer id, sometimes in another aisle
    for _ in range(cfg["relisted"]):
        old = rng.choice(rows)
        rows.append({"product_id": len(rows) + 1, "name": old["name"], "aisle": rng.choice(aisles)["aisle"]})
    return rows, aisles, departments


def build_orders(cfg, products, aisles, seed):
    rng = random.Random(seed + 1)
    n_seg = cfg["n_segments"]
    aisle_names = [a["aisle"] for a in aisles]
    by_aisle = {}
    for row in products:
        by_aisle.setdefault(row["aisle"], []).append(row["name"])
    # every customer segment favours a handful of aisles
    favourites = [rng.sample(sorted(by_aisle), 6) for _ in range(n_seg)]
    orders = []
    for oid in range(cfg["n_orders"]):
        seg = rng.randrange(n_seg)
        n = rng.randint(cfg["min_items"], cfg["max_items"])
        items = []
        for _ in range(n):
            aisle = rng.choice(favourites[seg]) if rng.random() < 0.6 else rng.choice(aisle_names)
            if aisle not in by_aisle:
                aisle = rng.choice(favourites[seg])
            items.append(rng.choice(by_aisle[aisle]))
        prior = None if rng.random() < 0.07 else rng.randint(1, 30)
        orders.append({
            "order_id": oid + 1,
            "segment": f"seg_{seg}",
            "order_dow": DOW[rng.randrange(7)],
            "order_hour_of_day": rng.randrange(24),
            "days_since_prior_order": prior,
            "products": items,
        })
    return orders
