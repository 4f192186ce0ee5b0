"""A lab code set: local codes from several sending labs mapped onto LOINC-like analytes."""
from collections import namedtuple

CodeEntry = namedtuple("CodeEntry", "system code loinc name unit low high status")

# analyte, loinc, canonical unit, reference low, reference high, SI unit, factor (conventional = SI * factor)
ANALYTES = [
    ("GLU", "2345-7", "mg/dL", 70.0, 99.0, "mmol/L", 18.016),
    ("BUN", "3094-0", "mg/dL", 7.0, 20.0, "mmol/L", 2.801),
    ("CREA", "2160-0", "mg/dL", 0.6, 1.2, "umol/L", 0.01131),
    ("NA", "2951-2", "mmol/L", 135.0, 145.0, None, None),
    ("K", "2823-3", "mmol/L", 3.5, 5.1, None, None),
    ("CL", "2075-0", "mmol/L", 98.0, 107.0, None, None),
    ("CO2", "2028-9", "mmol/L", 22.0, 29.0, None, None),
    ("CA", "17861-6", "mg/dL", 8.6, 10.3, "mmol/L", 4.008),
    ("ALB", "1751-7", "g/dL", 3.5, 5.0, "g/L", 0.1),
    ("ALT", "1742-6", "U/L", 7.0, 56.0, None, None),
    ("AST", "1920-8", "U/L", 10.0, 40.0, None, None),
    ("ALP", "6768-6", "U/L", 44.0, 147.0, None, None),
    ("TBIL", "1975-2", "mg/dL", 0.1, 1.2, "umol/L", 0.05848),
    ("WBC", "6690-2", "10*3/uL", 4.5, 11.0, None, None),
    ("RBC", "789-8", "10*6/uL", 4.2, 5.9, None, None),
    ("HGB", "718-7", "g/dL", 12.0, 17.5, "g/L", 0.1),
    ("HCT", "4544-3", "%", 36.0, 50.0, None, None),
    ("PLT", "777-3", "10*3/uL", 150.0, 400.0, None, None),
    ("MCV", "787-2", "fL", 80.0, 100.0, None, None),
    ("HBA1C", "4548-4", "%", 4.0, 5.6, None, None),
    ("CHOL", "2093-3", "mg/dL", 125.0, 200.0, "mmol/L", 38.67),
    ("TRIG", "2571-8", "mg/dL", 0.0, 150.0, "mmol/L", 88.57),
    ("TSH", "3016-3", "mIU/L", 0.4, 4.0, None, None),
    ("CRP", "1988-5", "mg/L", 0.0, 10.0, None, None),
]
SLOTS = {a[1]: i for i, a in enumerate(ANALYTES)}
SYSTEMS = ["LN", "99NWLAB", "99SUNLAB", "99MERCY", "L", "99ACME"]


def build_code_table(rng):
    """Every lab's local code for every analyte, padded with the rest of each lab's catalogue.

    Catalogues are exported as they are: mixed case, stray blanks, and some codes listed twice
    (an active line first, a retired one later)."""
    table = []
    for system in SYSTEMS:
        for k in range(700):  # tests we don't model (urinalysis, serology, ...)
            code = f"{system[:2]}{rng.randint(10000, 99999)}"
            table.append(CodeEntry(system, code, f"{rng.randint(10000, 99999)}-{rng.randint(0, 9)}",
                                   f"OTHER {k}", "", None, None, "A"))
        for name, loinc, unit, low, high, _, _ in ANALYTES:
            code = loinc if system == "LN" else f"{name.lower() if rng.random() < 0.5 else name}{rng.randint(1, 99)}"
            if rng.random() < 0.3:
                code = " " + code + " "
            table.append(CodeEntry(system, code, loinc, name, unit, low, high, "A"))
            if rng.random() < 0.2:
                table.append(CodeEntry(system, code.strip().upper(), loinc, name + " (RETIRED)", unit,
                                       low * 0.9, high * 1.1, "R"))
    rng.shuffle(table)
    return table


class CodeSet:
    """Look up (coding system, local code) -> CodeEntry; first active-or-retired line wins."""

    def __init__(self, entries):
        self.entries = list(entries)

    def lookup(self, system, code):
        want = code.strip().upper()
        for entry in self.entries:
            if entry.code.strip().upper() == want and entry.system == system:
                return entry
        return None
