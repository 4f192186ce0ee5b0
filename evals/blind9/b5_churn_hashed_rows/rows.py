"""Synthetic subscription-churn records as CSV-like dicts (strings, blanks, 'NA', thousands separators)."""
import random

REGIONS = ["north", "south", "east", "west", "central", "coastal", "mountain", "islands", "metro", "rural",
           "border", "lakes"]
DEVICES = ["android", "ios", "desktop", "tablet", "smart-tv"]
BROWSERS = ["chrome", "safari", "firefox", "edge", "samsung", "opera", "webview", "other"]
PLANS = ["free", "basic", "standard", "premium", "family", "business"]
CHANNELS = ["organic", "paid-search", "social", "referral", "email", "partner", "tv"]
EDUCATION = ["none", "primary", "secondary", "vocational", "bachelor", "master", "doctorate", "other"]
MARITAL = ["single", "married", "divorced", "widowed", "partnered"]
MISSING = [None, "", "NA", "?"]


def make_rows(n, seed):
    rng = random.Random(seed)
    occupations = [f"occ_{i:02d}" for i in range(45)]
    employers = [f"emp-{rng.randrange(10 ** 6):06d}" for _ in range(2500)]
    referrers = [f"https://{rng.choice(['news', 'blog', 'forum', 'shop', 'video'])}{i}.example.com/" for i in range(600)]
    rows = []
    for i in range(n):
        plan = rng.choices(PLANS, weights=[30, 25, 20, 10, 10, 5])[0]
        tenure = rng.expovariate(1 / 18.0)
        age = rng.gauss(41, 13)
        fee = {"free": 0.0, "basic": 7.99, "standard": 12.99, "premium": 17.99, "family": 22.99, "business": 39.0}[plan]
        tickets = min(int(rng.expovariate(0.6)), 20)
        risk = 0.9 * (plan == "free") - 0.04 * tenure + 0.35 * tickets + 0.02 * (35 - age) + rng.gauss(0, 1)
        row = {
            "customer_id": f"C{i:07d}",
            "region": rng.choice(REGIONS),
            "device": rng.choices(DEVICES, weights=[40, 30, 20, 8, 2])[0],
            "browser": rng.choice(BROWSERS),
            "plan": plan,
            "channel": rng.choice(CHANNELS),
            "occupation": rng.choices(occupations, weights=[1.0 / (k + 1) for k in range(45)])[0],
            "education": rng.choice(EDUCATION),
            "marital": rng.choice(MARITAL),
            "zip_code": f"{rng.randrange(10000, 99999)}",
            "employer": rng.choice(employers),
            "referrer": rng.choice(referrers),
            "age": f"{age:.0f}",
            "income": f"{rng.lognormvariate(10.6, 0.5):,.2f}",
            "tenure_months": f"{tenure:.1f}",
            "n_tickets": str(tickets),
            "monthly_fee": f"{fee:.2f}",
            "credit_score": str(int(rng.gauss(680, 60))),
            "churned": "1" if risk > 0.8 else "0",
        }
        for key in ("region", "device", "browser", "occupation", "education", "marital", "employer", "referrer",
                    "age", "income", "tenure_months", "credit_score"):
            if rng.random() < 0.05:
                row[key] = rng.choice(MISSING)
        rows.append(row)
    return rows
