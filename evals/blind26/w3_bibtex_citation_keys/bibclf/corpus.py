"""Deterministic synthetic .bib corpus: six entry types, the label is the venue type."""
import random

ENTRY_TYPES = ("article", "inproceedings", "book", "phdthesis", "techreport", "misc")
_SYL = ["ka", "ro", "mi", "te", "sun", "li", "wa", "ng", "der", "son", "ber", "man", "ov", "ic", "sch",
        "mid", "ta", "no", "yu", "chen", "zh", "ang", "mar", "tin", "ez", "ra", "vel", "dus", "hol", "ko"]
_FIRST = ["Anna", "Jian", "Maria", "Oleg", "Priya", "Lukas", "Sofia", "Kenji", "Amara", "Diego", "Ingrid",
          "Tomasz", "Hyun", "Fatima", "Pierre", "Noor", "Emil", "Chloé", "Søren", "José"]
_TOPIC = ["graph", "neural", "sparse", "bayesian", "stochastic", "robust", "adaptive", "distributed",
          "quantum", "convex", "causal", "federated", "temporal", "spectral", "variational", "kernel",
          "protein", "climate", "compiler", "network", "retrieval", "language", "vision", "control",
          "optimization", "inference", "learning", "estimation", "scheduling", "verification"]
_NOUN = ["models", "methods", "networks", "algorithms", "systems", "representations", "bounds",
         "analysis", "framework", "approach", "benchmark", "survey", "processes", "embeddings"]
_FIELD = ["Machine Learning", "Signal Processing", "Computational Biology", "Databases",
          "Programming Languages", "Robotics", "Information Theory", "Computer Vision", "Statistics"]
_ACCENT = {"é": "{\\'e}", "ø": "{\\o}", "ö": '{\\"o}', "ü": '{\\"u}', "ç": "{\\c c}", "á": "{\\'a}"}


def _surname(rng):
    s = "".join(rng.choice(_SYL) for _ in range(rng.randint(2, 4))).capitalize()
    if rng.random() < 0.2:
        s = s[:2] + rng.choice("éöüøá") + s[2:]
    return s


def _latex(s):
    return "".join(_ACCENT.get(ch, ch) for ch in s)


def _title(rng):
    words = [rng.choice(_TOPIC).capitalize()] + [rng.choice(_TOPIC) for _ in range(rng.randint(0, 3))]
    words += [rng.choice(_NOUN)]
    if rng.random() < 0.5:
        words += ["for", rng.choice(_TOPIC), rng.choice(_NOUN)]
    t = " ".join(words)
    return "{" + t[0] + "}" + t[1:] if rng.random() < 0.3 else t


def make_entry(rng):
    label = rng.randrange(len(ENTRY_TYPES))
    etype = ENTRY_TYPES[label]
    authors = [(_surname(rng), rng.choice(_FIRST)) for _ in range(rng.randint(1, 5))]
    year = rng.randint(1985, 2024)
    first = authors[0][0].lower()
    key = f"{first}{year}{rng.choice(_TOPIC)}"
    fields = [("author", " and ".join(_latex(f"{s}, {f}") for s, f in authors)), ("title", _latex(_title(rng))),
              ("year", str(year))]
    field = rng.choice(_FIELD)
    if etype == "article":
        fields += [("journal", rng.choice(["Journal of ", "IEEE Transactions on ", "Annals of "]) + field),
                   ("volume", str(rng.randint(1, 60))), ("number", str(rng.randint(1, 12))),
                   ("pages", f"{(p := rng.randint(1, 900))}--{p + rng.randint(5, 30)}")]
    elif etype == "inproceedings":
        fields += [("booktitle", f"Proceedings of the {rng.randint(1, 40)}th International Conference on {field}"),
                   ("pages", f"{(p := rng.randint(1, 900))}--{p + rng.randint(5, 12)}")]
        if rng.random() < 0.4:
            fields.append(("publisher", rng.choice(["ACM", "IEEE", "Springer"])))
    elif etype == "book":
        fields += [("publisher", rng.choice(["Springer", "MIT Press", "Cambridge University Press", "Wiley"])),
                   ("address", rng.choice(["Berlin", "Cambridge, MA", "New York", "Hoboken"])),
                   ("edition", rng.choice(["2nd", "3rd", "1st"])), ("isbn", f"978-{rng.randint(0, 9)}-{rng.randint(100, 999)}-{rng.randint(10000, 99999)}-{rng.randint(0, 9)}")]
    elif etype == "phdthesis":
        fields += [("school", f"University of {_surname(rng)}"), ("type", "{PhD} thesis")]
    elif etype == "techreport":
        fields += [("institution", f"{_surname(rng)} Institute of Technology"),
                   ("number", f"TR-{year}-{rng.randint(1, 99):02d}")]
    else:
        fields += [("howpublished", f"\\url{{https://{first}.github.io/{rng.choice(_TOPIC)}}}"),
                   ("note", rng.choice(["Accessed: 2024-01-05", "Software", "Preprint", "Dataset"]))]
    if rng.random() < 0.6:
        sents = []
        for _ in range(rng.randint(2, 4)):
            sents.append(f"We study {_title(rng).lower()} and propose {rng.choice(_TOPIC)} {rng.choice(_NOUN)} "
                         f"that improve {rng.choice(_TOPIC)} {rng.choice(_NOUN)} by {rng.randint(2, 40)} percent.")
        fields.append(("abstract", " ".join(sents)))
    rng.shuffle(fields)
    body = ",\n".join(f"  {name:<12} = {{{value}}}" for name, value in fields)
    return f"@{etype}{{{key},\n{body}\n}}\n", label


def make_corpus(n, seed):
    rng = random.Random(seed)
    return [make_entry(rng) for _ in range(n)]
