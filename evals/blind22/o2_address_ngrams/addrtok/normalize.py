"""USPS-flavoured street address normalisation (Publication 28 abbreviations)."""
import re

STREET_SUFFIXES = {
    "street": "st", "str": "st", "st": "st", "strt": "st",
    "avenue": "ave", "av": "ave", "aven": "ave", "avenu": "ave", "ave": "ave", "avn": "ave",
    "boulevard": "blvd", "boul": "blvd", "blvd": "blvd", "boulv": "blvd",
    "road": "rd", "rd": "rd",
    "drive": "dr", "driv": "dr", "drv": "dr", "dr": "dr",
    "lane": "ln", "ln": "ln",
    "court": "ct", "ct": "ct",
    "place": "pl", "pl": "pl",
    "terrace": "ter", "terr": "ter", "ter": "ter",
    "circle": "cir", "circ": "cir", "crcl": "cir", "cir": "cir",
    "highway": "hwy", "highwy": "hwy", "hiway": "hwy", "hwy": "hwy",
    "parkway": "pkwy", "parkwy": "pkwy", "pkway": "pkwy", "pky": "pkwy", "pkwy": "pkwy",
    "square": "sq", "sqr": "sq", "sq": "sq",
    "way": "way", "wy": "way",
    "trail": "trl", "trl": "trl",
}

DIRECTIONALS = {
    "north": "n", "south": "s", "east": "e", "west": "w",
    "northeast": "ne", "northwest": "nw", "southeast": "se", "southwest": "sw",
    "n": "n", "s": "s", "e": "e", "w": "w", "ne": "ne", "nw": "nw", "se": "se", "sw": "sw",
}

UNIT_DESIGNATORS = {
    "apartment": "apt", "apt": "apt", "#": "apt", "no": "apt",
    "suite": "ste", "ste": "ste", "unit": "unit", "floor": "fl", "fl": "fl",
    "room": "rm", "rm": "rm", "building": "bldg", "bldg": "bldg",
}

_PUNCT = re.compile(r"[.,;:'\"()]")
_HASH_UNIT = re.compile(r"#\s*(\w+)")
_HOUSE_NO = re.compile(r"^(\d+)\s*-?\s*([a-z])\b")
_ORDINAL = re.compile(r"\b(\d+)(st|nd|rd|th)\b")
_SPACES = re.compile(r"\s+")


def normalize_address(text):
    """'1200-B North Maple Street, Apt. #4b, Springfield, IL 62704' -> '1200b n maple st apt 4b springfield il 62704'"""
    s = text.lower().strip()
    s = _HASH_UNIT.sub(r"# \1", s)
    s = _PUNCT.sub(" ", s)
    s = _HOUSE_NO.sub(r"\1\2", s)
    s = _ORDINAL.sub(r"\1", s)
    words = _SPACES.split(s.strip())
    out = []
    prev_unit = False
    for i, w in enumerate(words):
        if w in UNIT_DESIGNATORS and i > 0:
            unit = UNIT_DESIGNATORS[w]
            if not (prev_unit and unit == "apt"):
                out.append(unit)
            prev_unit = True
            continue
        if w in STREET_SUFFIXES and i > 1:
            out.append(STREET_SUFFIXES[w])
        elif w in DIRECTIONALS and 0 < i < 3:
            out.append(DIRECTIONALS[w])
        else:
            out.append(w)
        prev_unit = False
    return " ".join(out)
