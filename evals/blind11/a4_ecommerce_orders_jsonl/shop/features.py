"""Per-order features: spend and quantity per top-level category, shipping, timing."""
import json
from datetime import datetime, timezone
from decimal import Decimal

CATEGORIES = ["Electronics", "Home & Kitchen", "Fashion", "Beauty", "Sports", "Toys", "Books", "Grocery",
              "Garden", "Automotive", "Pets", "Office"]
FEATURE_NAMES = ([f"spend[{c}]" for c in CATEGORIES] + [f"qty[{c}]" for c in CATEGORIES]
                 + ["n_lines", "n_categories", "shipping", "discount_share", "hour", "weekday", "b2b"])


def iter_line_items(items, depth=0):
    """Flatten nested line items: bundles carry their own `items` list (bundles may nest)."""
    for item in items:
        children = item.get("items")
        if children:
            yield from iter_line_items(children, depth + 1)
        else:
            yield item


def top_category(path):
    head = path.split(">", 1)[0].strip()
    for idx, name in enumerate(CATEGORIES):
        if name.casefold() == head.casefold():
            return idx
    raise KeyError(f"unknown category {path!r}")


class OrderFeaturizer:
    def __init__(self, currency_table, item_dropout=0.0):
        self.rates = currency_table
        self.item_dropout = item_dropout

    def __call__(self, line, rng):
        """One JSON line -> (feature row as floats, returned flag). Draws one number per line item."""
        order = json.loads(line)
        created = datetime.fromisoformat(order["created_at"]).astimezone(timezone.utc)
        rate = self.rates.rate(order["currency"], created.date())
        spend = [0.0] * len(CATEGORIES)
        qty = [0] * len(CATEGORIES)
        n_lines = 0
        gross = Decimal(0)
        discount = Decimal(0)
        kept_first = None
        for item in iter_line_items(order["items"]):
            line_gross = Decimal(item["unit_price"]) * item["qty"]
            line_discount = sum((Decimal(d["amount"]) for d in item.get("discounts", ())), Decimal(0))
            cat = top_category(item["category"])
            if kept_first is None:
                kept_first = (cat, line_gross, line_discount, item["qty"])
            if rng.random() < self.item_dropout:
                continue
            spend[cat] += float((line_gross - line_discount) * rate)
            qty[cat] += item["qty"]
            gross += line_gross
            discount += line_discount
            n_lines += 1
        if n_lines == 0 and kept_first is not None:  # every line dropped: keep the first one
            cat, line_gross, line_discount, q = kept_first
            spend[cat] += float((line_gross - line_discount) * rate)
            qty[cat] += q
            gross, discount, n_lines = line_gross, line_discount, 1
        shipping = float(Decimal(order["shipping"]["cost"]) * rate)
        share = float(discount / gross) if gross > 0 else 0.0
        row = spend + [float(q) for q in qty] + [
            float(n_lines), float(sum(1 for q in qty if q)), shipping, share,
            created.hour / 23.0, created.weekday() / 6.0, 1.0 if order["customer"]["segment"] == "b2b" else 0.0,
        ]
        return row, bool(order["returned"])
