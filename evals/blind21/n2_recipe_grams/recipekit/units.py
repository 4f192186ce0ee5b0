"""Ingredient-line parsing: '1 1/2 cups flour, sifted' -> (grams, 'flour', 'sifted')."""
import math
import re
from dataclasses import dataclass

_QTY = r"(?P<qty>\d+\s+\d+/\d+|\d+/\d+|\d+(?:\.\d+)?)"
_UNIT_NAMES = sorted(
    ["cups", "cup", "c.", "tablespoons", "tablespoon", "tbsp", "teaspoons", "teaspoon", "tsp", "grams", "g",
     "kg", "ounces", "oz", "pounds", "pound", "lb", "ml", "l", "pinch"], key=len, reverse=True)
_UNIT = r"(?:(?P<unit>" + "|".join(re.escape(u) for u in _UNIT_NAMES) + r")\s+)?"
LINE_RE = re.compile(r"^\s*" + _QTY + r"\s+" + _UNIT + r"(?P<rest>.+?)\s*$", re.IGNORECASE)

VOLUME_ML = {"cup": 236.588, "cups": 236.588, "c.": 236.588, "tablespoon": 14.787, "tablespoons": 14.787,
             "tbsp": 14.787, "teaspoon": 4.929, "teaspoons": 4.929, "tsp": 4.929, "ml": 1.0, "l": 1000.0,
             "pinch": 0.31}
MASS_G = {"g": 1.0, "grams": 1.0, "kg": 1000.0, "oz": 28.3495, "ounces": 28.3495, "lb": 453.592,
          "pound": 453.592, "pounds": 453.592}
# g per ml; anything not listed is treated like water
DENSITY = {"flour": 0.53, "sugar": 0.85, "confectioners sugar": 0.56, "muscovado sugar": 0.93, "butter": 0.91,
           "milk": 1.03, "oil": 0.92, "honey": 1.42, "salt": 1.2, "rice": 0.85, "cocoa": 0.42,
           "cream": 1.01, "powder": 0.6, "cheese": 0.45, "walnuts": 0.42, "chickpeas": 0.7, "soda": 0.9}
EACH_G = {"free-range eggs": 50.0, "yellow onion": 110.0, "garlic cloves": 5.0, "heirloom carrots": 60.0,
          "yukon gold potatoes": 170.0, "english cucumber": 300.0, "dried bay leaves": 0.2,
          "fresh strawberries": 12.0, "cherry tomatoes": 15.0, "celery stalks": 40.0}


@dataclass
class Ingredient:
    quantity: float
    unit: str
    name: str
    prep: str
    grams: float


def parse_quantity(text):
    """'1 1/2' -> 1.5, '3/4' -> 0.75, '0.5' -> 0.5"""
    total = 0.0
    for part in text.split():
        if "/" in part:
            num, den = part.split("/")
            total += int(num) / int(den)
        else:
            total += float(part)
    return total


def density_for(name):
    best = None
    for key, rho in DENSITY.items():
        if key in name and (best is None or len(key) > len(best[0])):
            best = (key, rho)
    return best[1] if best else 1.0


def parse_line(line):
    m = LINE_RE.match(line)
    if m is None:
        return Ingredient(0.0, "", line.lower(), "", 0.0)
    qty = parse_quantity(m.group("qty"))
    unit = (m.group("unit") or "").lower()
    rest = m.group("rest").lower()
    prep = ""
    if "(" in rest:
        rest, _, prep = rest.partition("(")
        prep = prep.rstrip(")")
    if "," in rest:
        rest, _, prep2 = rest.partition(",")
        prep = (prep + " " + prep2).strip()
    name = rest.strip()
    if unit in MASS_G:
        grams = qty * MASS_G[unit]
    elif unit in VOLUME_ML:
        grams = qty * VOLUME_ML[unit] * density_for(name)
    else:
        grams = qty * EACH_G.get(name, 100.0)
    return Ingredient(qty, unit, name, prep.strip(), round(grams, 1))


def normalise(ing):
    """Canonical text the tokenizer sees: '<qty> <unit> = <grams> g <name> [; prep]'."""
    grams = int(math.floor(ing.grams + 0.5))
    text = f"{ing.quantity:g} {ing.unit or 'each'} = {grams} g {ing.name}"
    return f"{text} ; {ing.prep}" if ing.prep else text
