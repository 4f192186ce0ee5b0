"""A taxi-zone lookup table like the TLC's taxi_zone_lookup.csv (LocationID, Borough, Zone, service_zone)."""
import random

BOROUGHS = ["Manhattan", "Brooklyn", "Queens", "Bronx", "Staten Island", "EWR"]
SERVICE_ZONES = ["Yellow Zone", "Boro Zone", "Airports", "EWR"]


def make_zone_table(num_zones, seed):
    rng = random.Random(seed)
    zones = []
    for loc in range(1, num_zones + 1):
        if loc == 1:
            borough, service = "EWR", "EWR"
        elif loc in (132, 138):
            borough, service = "Queens", "Airports"
        else:
            borough = rng.choices(BOROUGHS[:5], weights=[69, 61, 69, 43, 20])[0]
            service = "Yellow Zone" if borough == "Manhattan" and rng.random() < 0.8 else "Boro Zone"
        zones.append({
            "LocationID": str(loc),
            "Borough": borough,
            "Zone": f"Zone {loc}",
            "service_zone": service,
            # rough centroid, used only by the generator
            "x": rng.uniform(0, 30), "y": rng.uniform(0, 30),
        })
    return zones


def find_zone(zones, location_id):
    for z in zones:
        if z["LocationID"] == location_id:
            return z
    return None
