"""Feature extraction for one listing document."""
import datetime
import json
import math
import statistics

from export import AMENITIES, CITIES, ENERGY

CITY_NAMES = list(CITIES)


def parse_floor(value):
    if value == "RDC":
        return 0.0, 0.0
    floor, total = value.split("/")
    return float(floor), float(floor) / float(total)


def listing_features(doc, peers, reference_date):
    """doc: decoded JSON; peers: (district, price per m2) pairs of the listing's city."""
    specs, loc = doc["specs"], doc["location"]
    area = specs["area_m2"]
    floor, floor_ratio = parse_floor(specs["floor"])
    year = specs.get("year_built")
    energy = specs.get("energy_class")
    listed = datetime.date.fromisoformat(doc["listed_at"])
    district_ppm2 = statistics.median([p for d, p in peers if d == loc["district"]])
    amen = doc.get("amenities", [])
    dense = [
        math.log(area),
        float(specs["rooms"]),
        area / specs["rooms"] / 30.0,
        floor / 10.0,
        floor_ratio,
        0.0 if year is None else (reference_date.year - year) / 100.0,
        1.0 if year is None else 0.0,
        ENERGY.index(energy) / 6.0 if energy else 0.5,
        1.0 if energy is None else 0.0,
        (reference_date - listed).days / 365.0,
        math.log(district_ppm2),
        doc["agent"]["rating"] / 5.0,
    ]
    dense += [1.0 if a in amen else 0.0 for a in AMENITIES]
    return dense, CITY_NAMES.index(loc["city"]), math.log(doc["price"]["amount"])


def price_per_m2_pairs(lines):
    """City -> list of (district, price per m2) over the whole export."""
    pairs = {}
    for line in lines:
        doc = json.loads(line)
        pairs.setdefault(doc["location"]["city"], []).append(
            (doc["location"]["district"], doc["price"]["amount"] / doc["specs"]["area_m2"]))
    return pairs
