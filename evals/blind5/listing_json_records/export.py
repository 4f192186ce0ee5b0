"""A property-portal export: one JSON document per listing, as the API returns it."""
import json
import random

CITIES = {
    "Lyon": (4700, 9), "Bordeaux": (4400, 8), "Lille": (3400, 7), "Nantes": (3900, 7),
    "Toulouse": (3700, 8), "Nice": (5200, 6), "Rennes": (3800, 6), "Grenoble": (2900, 6),
    "Montpellier": (3600, 7), "Strasbourg": (3500, 6),
}
AMENITIES = ["balcony", "elevator", "parking", "cellar", "garden", "terrace", "pool", "concierge",
             "fireplace", "fiber"]
ENERGY = "ABCDEFG"


def _listing(i, rng):
    city = rng.choice(list(CITIES))
    base, n_districts = CITIES[city]
    d = rng.randrange(n_districts)
    district_factor = 0.75 + 0.5 * d / max(1, n_districts - 1)
    area = round(rng.lognormvariate(4.1, 0.35), 1)
    rooms = max(1, min(8, int(round(area / 22 + rng.gauss(0, 0.6)))))
    total_floors = rng.randint(1, 12)
    floor = rng.randint(0, total_floors)
    year = rng.randint(1880, 2023) if rng.random() > 0.15 else None
    energy = rng.choice(ENERGY) if rng.random() > 0.1 else None
    amen = sorted(rng.sample(AMENITIES, rng.randint(0, 5)))
    ppm2 = base * district_factor * (1 + 0.03 * len(amen)) * (1.15 if energy in ("A", "B") else 1.0)
    ppm2 *= 0.85 if year is not None and year < 1950 else 1.0
    price = int(round(area * ppm2 * rng.lognormvariate(0, 0.12), -2))
    return {
        "id": f"L{i:06d}",
        "listed_at": f"20{rng.randint(22, 24)}-{rng.randint(1, 6):02d}-{rng.randint(1, 28):02d}",
        "price": {"amount": price, "currency": "EUR"},
        "location": {"city": city, "district": f"{city}-{d + 1}",
                     "lat": round(45 + rng.uniform(-3, 5), 5), "lon": round(3 + rng.uniform(-4, 4), 5)},
        "specs": {"area_m2": area, "rooms": rooms,
                  "floor": "RDC" if floor == 0 else f"{floor}/{total_floors}",
                  "year_built": year, "energy_class": energy},
        "amenities": amen,
        "agent": {"name": f"agency-{rng.randrange(300)}", "rating": round(rng.uniform(2.5, 5.0), 1)},
    }


def make_export(n, seed):
    rng = random.Random(seed)
    return [json.dumps(_listing(i, rng)) for i in range(n)]
