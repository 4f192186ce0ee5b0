"""Deterministic generator of messy US street addresses (what a delivery form collects)."""
import random

STREETS = ["Maple", "Oak", "Pine", "Cedar", "Elm", "Washington", "Lake", "Hill", "Park", "Main",
           "Sunset", "Lincoln", "Jackson", "Highland", "Forest", "River", "Church", "Spring",
           "Madison", "Franklin", "Chestnut", "Walnut", "Willow", "Meadow", "Ridge", "Valley",
           "Jefferson", "Adams", "Center", "Mill", "Prospect", "Union", "Grove", "Bridge",
           "Harbor", "Orchard", "Garfield", "Kennedy", "Broadway", "Railroad", "Cherry", "Dogwood"]
SUFFIX_FORMS = {
    "st": ["Street", "St", "St.", "STREET", "Str"],
    "ave": ["Avenue", "Ave", "Ave.", "Av", "AVE"],
    "blvd": ["Boulevard", "Blvd", "Blvd.", "Boul"],
    "rd": ["Road", "Rd", "Rd.", "ROAD"],
    "dr": ["Drive", "Dr", "Dr.", "Drv"],
    "ln": ["Lane", "Ln", "Ln."],
    "ct": ["Court", "Ct", "Ct."],
    "pl": ["Place", "Pl"],
    "ter": ["Terrace", "Ter", "Terr"],
    "cir": ["Circle", "Cir", "Circ"],
    "pkwy": ["Parkway", "Pkwy", "Pky"],
    "way": ["Way"],
}
DIRS = [("North", "N"), ("South", "S"), ("East", "E"), ("West", "W"), ("Northeast", "NE"),
        ("Southwest", "SW")]
UNITS = ["Apt {u}", "Apt. {u}", "#{u}", "Apt #{u}", "Unit {u}", "Suite {u}", "Ste {u}", "APT {u}"]
CITIES = [("Springfield", "IL", 62704), ("Columbus", "OH", 43215), ("Madison", "WI", 53703),
          ("Portland", "OR", 97205), ("Austin", "TX", 78701), ("Denver", "CO", 80202),
          ("Salem", "MA", 1970), ("Richmond", "VA", 23219), ("Albany", "NY", 12207),
          ("Fresno", "CA", 93721), ("Boise", "ID", 83702), ("Raleigh", "NC", 27601),
          ("Tucson", "AZ", 85701), ("Omaha", "NE", 68102), ("Tampa", "FL", 33602),
          ("Dayton", "OH", 45402), ("Eugene", "OR", 97401), ("Lansing", "MI", 48933)]
KINDS = sorted(SUFFIX_FORMS)


class AddressGenerator:
    """Label = the canonical street suffix class (st, ave, ...), which the model must read from the
    (abbreviated, misspelled, reordered) text."""

    def __init__(self, seed, noise_rate=0.3):
        self.rng = random.Random(seed)
        self.noise_rate = noise_rate

    def one(self):
        r = self.rng
        kind = r.choice(KINDS)
        number = str(r.randint(1, 19999))
        if r.random() < 0.1:
            number += r.choice(["-A", "B", "-C", " 1/2"])
        parts = [number]
        if r.random() < 0.35:
            d = r.choice(DIRS)
            parts.append(d[r.random() < 0.5])
        street = r.choice(STREETS)
        if r.random() < 0.15:
            street = f"{r.randint(1, 99)}{r.choice(['st', 'nd', 'rd', 'th'])}"
        parts.append(street)
        parts.append(r.choice(SUFFIX_FORMS[kind]))
        line = " ".join(parts)
        if r.random() < 0.45:
            unit = r.choice(UNITS).format(u=f"{r.randint(1, 40)}{r.choice(['', 'A', 'b', 'C'])}")
            line += ("," if r.random() < 0.7 else "") + " " + unit
        city, state, zipc = r.choice(CITIES)
        tail = f"{city}, {state} {zipc:05d}"
        if r.random() < 0.3:
            tail += f"-{r.randint(0, 9999):04d}"
        text = f"{line}, {tail}"
        if r.random() < self.noise_rate:
            text = text.upper() if r.random() < 0.5 else text.lower()
        return text, KINDS.index(kind)

    def generate(self, n):
        return [self.one() for _ in range(n)]
