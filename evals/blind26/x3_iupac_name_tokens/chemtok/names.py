"""Random but well-formed substitutive IUPAC names, labelled by compound class."""
import random

PARENTS = ["meth", "eth", "prop", "but", "pent", "hex", "hept", "oct", "non", "dec",
           "cyclopent", "cyclohex", "cyclohept"]
SUBSTITUENTS = ["methyl", "ethyl", "propyl", "isopropyl", "tert-butyl", "chloro", "bromo", "fluoro",
                "iodo", "nitro", "amino", "hydroxy", "methoxy", "ethoxy", "phenyl", "oxo", "cyano",
                "vinyl", "benzyl", "trifluoromethyl"]
MULTIPLIERS = {2: "di", 3: "tri", 4: "tetra"}
# class name -> (suffix, needs locant)
CLASSES = {
    "alcohol": ("ol", True),
    "aldehyde": ("al", False),
    "ketone": ("one", True),
    "carboxylic_acid": ("oic acid", False),
    "amine": ("amine", True),
    "nitrile": ("nitrile", False),
    "ester": ("oate", False),
    "alkene": ("ene", True),
}
CLASS_NAMES = sorted(CLASSES)


def _chain_length(parent):
    base = parent.replace("cyclo", "")
    return 1 + ["meth", "eth", "prop", "but", "pent", "hex", "hept", "oct", "non", "dec"].index(base)


def random_name(rng: random.Random, max_substituents: int):
    cls = rng.choice(CLASS_NAMES)
    parent = rng.choice(PARENTS[2:])
    n = _chain_length(parent)
    subs = {}
    for _ in range(rng.randint(0, max_substituents)):
        s = rng.choice(SUBSTITUENTS)
        subs.setdefault(s, []).append(rng.randint(1, n))
    parts = []
    for s in sorted(subs, key=lambda k: k.replace("tert-", "")):
        locs = sorted(subs[s])
        mult = MULTIPLIERS.get(len(locs), "")
        name = f"({s})" if "-" in s or len(locs) > 1 and s.endswith("methyl") and s != "methyl" else s
        parts.append(",".join(map(str, locs)) + "-" + mult + name)
    prefix = "-".join(parts)
    suffix, locant = CLASSES[cls]
    unsat = "an"
    if cls == "alkene":
        stem = f"{parent}-{rng.randint(1, n - 1)}-{suffix}"
    else:
        if rng.random() < 0.25:
            unsat = f"-{rng.randint(1, n - 1)}-en"
        loc = f"-{rng.randint(1, n)}-" if locant else ""
        joiner = "e" if suffix in ("nitrile",) else ""
        stem = f"{parent}{unsat}{joiner}{loc}{suffix}"
    name = f"{prefix}{stem}" if prefix else stem
    if cls == "ester":
        name = rng.choice(["methyl", "ethyl", "propyl", "benzyl"]) + " " + name
    if rng.random() < 0.2:
        name = name.capitalize()
    return name, CLASS_NAMES.index(cls)
