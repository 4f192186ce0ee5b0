"""Electronic lab notebook entries: synthetic procedures and their normalisation.

Entries look like what a notebook export gives: an entry header line, then free-text
procedure lines with quantities ("2.50 mL", "135 mg", "0 °C") and reagents written however
the chemist felt like writing them that day ("EtOH", "ethyl alcohol", "ethanol").
"""
import math
import random
import re

# canonical name -> surface forms (lower case, space separated words)
SYNONYMS = {
    "ethanol": ["ethanol", "etoh", "ethyl alcohol", "absolute ethanol"],
    "methanol": ["methanol", "meoh", "methyl alcohol"],
    "dichloromethane": ["dichloromethane", "dcm", "methylene chloride", "ch2cl2"],
    "ethyl_acetate": ["ethyl acetate", "etoac", "ea"],
    "tetrahydrofuran": ["tetrahydrofuran", "thf", "dry thf", "anhydrous thf"],
    "sodium_borohydride": ["sodium borohydride", "nabh4"],
    "lithium_aluminium_hydride": ["lithium aluminium hydride", "lithium aluminum hydride", "lialh4", "lah"],
    "sulfuric_acid": ["sulfuric acid", "sulphuric acid", "h2so4", "concentrated sulfuric acid"],
    "acetic_acid": ["acetic acid", "acoh", "glacial acetic acid"],
    "pd_tetrakis": ["pd(pph3)4", "tetrakis", "palladium tetrakis"],
    "potassium_carbonate": ["potassium carbonate", "k2co3", "potash"],
    "phenylboronic_acid": ["phenylboronic acid", "phb(oh)2", "benzeneboronic acid"],
    "dioxane": ["dioxane", "p-dioxane", "1-4-dioxane"],
    "edc": ["edc", "edci", "edc hydrochloride"],
    "hobt": ["hobt", "hydroxybenzotriazole", "1-hydroxybenzotriazole"],
    "dipea": ["dipea", "diisopropylethylamine", "hunig base"],
    "dmf": ["dmf", "dimethylformamide", "dry dmf"],
    "brine": ["brine", "saturated nacl", "sat nacl"],
    "sodium_sulfate": ["sodium sulfate", "sodium sulphate", "na2so4", "anhydrous na2so4"],
    "magnesium_sulfate": ["magnesium sulfate", "mgso4"],
    "water": ["water", "h2o", "di water", "deionised water"],
    "hexane": ["hexane", "hexanes", "petroleum ether", "pet ether"],
}

CLASSES = ("reduction", "esterification", "suzuki", "amide_coupling")
_REAGENTS = {
    0: (["sodium borohydride", "nabh4", "lialh4", "lah", "lithium aluminium hydride"],
        ["methanol", "meoh", "thf", "dry thf", "ethanol", "tetrahydrofuran"]),
    1: (["h2so4", "sulfuric acid", "concentrated sulfuric acid", "acetic acid", "acoh"],
        ["etoh", "ethanol", "absolute ethanol", "methanol", "methyl alcohol"]),
    2: (["pd(pph3)4", "tetrakis", "phenylboronic acid", "phb(oh)2", "k2co3", "potassium carbonate"],
        ["dioxane", "p-dioxane", "1-4-dioxane", "water", "thf"]),
    3: (["edc", "edci", "hobt", "hydroxybenzotriazole", "dipea", "diisopropylethylamine", "hunig base"],
        ["dmf", "dry dmf", "dimethylformamide", "dcm", "ch2cl2"]),
}
_SUBSTRATES = ["benzaldehyde", "4-bromoanisole", "cyclohexanone", "benzoic acid", "aniline",
               "2-bromopyridine", "boc-glycine", "4-nitrobenzoic acid", "acetophenone", "indole",
               "3-bromotoluene", "benzylamine", "methyl 4-formylbenzoate", "piperidine",
               "4-(trifluoromethyl)benzaldehyde", "tert-butyl 4-oxopiperidine-1-carboxylate",
               "2-chloro-5-nitropyridine", "1-(4-methoxyphenyl)ethan-1-one", "3,5-dimethoxybenzoic acid",
               "ethyl 2-oxocyclohexane-1-carboxylate", "4-bromo-2-fluorobenzonitrile",
               "n-boc-4-aminopiperidine", "6-bromoquinoline", "2-(4-bromophenyl)acetic acid",
               "methyl 3-amino-4-methylthiophene-2-carboxylate", "5-bromo-1-methyl-1h-indazole"]
_PRODUCTS = ["alcohol", "ester", "biaryl", "amide", "carboxylic acid", "secondary amine"]
_OBSERVATIONS = [
    "the solution turned {c} on addition", "vigorous gas evolution was observed",
    "a {c} precipitate formed after {t} min", "the exotherm was controlled with an ice bath",
    "starting material remained by lcms after {t} min", "the mixture became heterogeneous",
    "colour changed from {c} to {c2} over {t} min", "slight fuming observed, addition slowed",
    "crude nmr showed a {p} impurity of about {n} percent", "emulsion during extraction broke with brine",
]
_COLOURS = ["pale yellow", "deep red", "orange", "dark brown", "colourless", "green", "purple", "cloudy white"]
_WORKUP = ["ethyl acetate", "etoac", "dcm", "dichloromethane", "methylene chloride", "ea"]
_DRYING = ["na2so4", "sodium sulfate", "anhydrous na2so4", "mgso4", "magnesium sulfate"]


def _cap(text, rnd):
    return text.upper() if rnd.random() < 0.15 and len(text) < 8 else text


def _mass(rnd):
    return f"{rnd.choice([rnd.uniform(5, 999), rnd.uniform(1.0, 9.9)]):.{rnd.choice([0, 1, 2])}f} {rnd.choice(['mg', 'g'])}"


def _entry(rnd, k):
    cls = rnd.randrange(len(CLASSES))
    reagents, solvents = _REAGENTS[cls]
    sub = rnd.choice(_SUBSTRATES)
    lines = [f"Entry {rnd.choice(['JK', 'AM', 'TS', 'LW'])}-{rnd.randint(2019, 2025)}-{k:04d}: {CLASSES[cls].replace('_', ' ') if rnd.random() < 0.3 else 'procedure'}"]
    lines.append(f"To a solution of {sub} ({_mass(rnd)}, {rnd.uniform(0.5, 25):.2f} mmol) in "
                 f"{_cap(rnd.choice(solvents), rnd)} ({rnd.uniform(2, 60):.1f} mL) was added "
                 f"{_cap(rnd.choice(reagents), rnd)} ({rnd.uniform(1.0, 3.0):.1f} equiv) at {rnd.choice([-78, 0, 0, 20, 25])} °C.")
    for _ in range(rnd.randint(2, 6)):
        lines.append(rnd.choice([
            f"{_cap(rnd.choice(reagents), rnd).capitalize()} ({_mass(rnd)}) was added portionwise over {rnd.randint(5, 30)} min.",
            f"The mixture was stirred at {rnd.choice([0, 25, 60, 80, 100])} °C for {rnd.randint(1, 24)} h.",
            f"The reaction was heated to reflux ({rnd.randint(60, 110)} °C) for {rnd.randint(2, 18)} h under N2.",
            f"Additional {_cap(rnd.choice(reagents), rnd)} ({rnd.uniform(0.1, 1.0):.2f} equiv) was added and stirring continued for {rnd.randint(10, 90)} min.",
            f"TLC ({rnd.randint(10, 50)}% {rnd.choice(_WORKUP)} in {rnd.choice(['hexane', 'hexanes', 'pet ether'])}) showed full conversion.",
        ]))
    if rnd.random() < 0.8:
        notes = [rnd.choice(_OBSERVATIONS).format(c=rnd.choice(_COLOURS), c2=rnd.choice(_COLOURS),
                                                   t=rnd.randint(2, 45), p=rnd.choice(_PRODUCTS),
                                                   n=rnd.randint(2, 15)) for _ in range(rnd.randint(1, 3))]
        lines.append("Observations: " + "; ".join(notes) + ".")
    lines.append(f"The reaction was quenched with {rnd.choice(['water', 'h2o', 'di water', 'brine', 'sat nacl'])} "
                 f"({rnd.uniform(5, 50):.0f} mL) and extracted with {_cap(rnd.choice(_WORKUP), rnd)} (3 x {rnd.uniform(10, 80):.0f} mL).")
    lines.append(f"The combined organic layers were washed with {rnd.choice(['brine', 'saturated NaCl', 'water'])}, "
                 f"dried over {_cap(rnd.choice(_DRYING), rnd)}, filtered and concentrated in vacuo.")
    if rnd.random() < 0.7:
        lines.append(f"Purification by column chromatography ({rnd.randint(5, 40)}% {rnd.choice(_WORKUP)}/{rnd.choice(['hexane', 'petroleum ether'])}) "
                     f"gave the {rnd.choice(_PRODUCTS)} derived from {rnd.choice(_SUBSTRATES)} as a {rnd.choice(['white solid', 'colourless oil', 'yellow solid', 'pale oil'])} ({_mass(rnd)}, {rnd.randint(35, 98)}%).")
    return "\n".join(lines), cls


def make_notebook(n_entries, seed):
    rnd = random.Random(seed)
    return [_entry(rnd, k) for k in range(n_entries)]


_QTY = re.compile(r"(-?\d+(?:\.\d+)?)\s*(mg|g|kg|µL|uL|mL|L|mmol|mol|equiv|eq|°C|h|min|%)(?![A-Za-z])")
_UNITS = {"mg": ("mass", 1e-3), "g": ("mass", 1.0), "kg": ("mass", 1e3),
          "µL": ("vol", 1e-6), "uL": ("vol", 1e-6), "mL": ("vol", 1e-3), "L": ("vol", 1.0),
          "mmol": ("amt", 1e-3), "mol": ("amt", 1.0), "equiv": ("eq", 1.0), "eq": ("eq", 1.0),
          "h": ("time", 60.0), "min": ("time", 1.0)}
_WORD = re.compile(r"<[a-z_]+:-?\d+>|[A-Za-z0-9][A-Za-z0-9\-]*(?:\([A-Za-z0-9]+\)[A-Za-z0-9]*)*|[^\sA-Za-z0-9]")


def _quantity_token(match):
    value, unit = float(match.group(1)), match.group(2)
    if unit == "°C":
        return f" <temp:{int(value // 20) * 20}> "
    if unit == "%":
        return f" <pct:{int(value // 10) * 10}> "
    kind, scale = _UNITS[unit]
    si = value * scale
    if kind == "eq":
        return f" <eq:{int(round(si))}> "
    return f" <{kind}:{math.floor(math.log10(si)) if si > 0 else -99}> "


class ProcedureNormalizer:
    """Quantities -> unit-canonical log buckets, reagent names -> one canonical token.

    Reagents are matched greedily, longest phrase first (up to three words), case-insensitively;
    a phrase listed under two names belongs to the first one in SYNONYMS.
    """

    def __init__(self, synonyms=SYNONYMS, max_words=3):
        self.synonyms = synonyms
        self.max_words = max_words

    def canonical(self, phrase):
        for name, forms in self.synonyms.items():
            if phrase in forms:
                return name
        return None

    def __call__(self, line):
        line = _QTY.sub(_quantity_token, line)
        words = _WORD.findall(line)
        out = []
        i = 0
        while i < len(words):
            for n in range(self.max_words, 0, -1):
                if i + n > len(words):
                    continue
                name = self.canonical(" ".join(words[i:i + n]).lower())
                if name is not None:
                    out.append(f"<r:{name}>")
                    i += n
                    break
            else:
                out.append(words[i] if words[i].startswith("<") else words[i].lower())
                i += 1
        return out
