"""Synthetic prescription directions, written the way prescribers type them."""
import random

ROUTES = [("PO", 0), ("po", 0), ("p.o.", 0), ("by mouth", 0), ("SL", 1), ("IM", 2), ("IV", 3),
          ("SC", 4), ("subq", 4), ("SQ", 4), ("PR", 5), ("TOP", 6), ("INH", 7), ("OU", 8), ("OS", 8),
          ("AU", 9)]
FORMS = {0: ["tab", "tabs", "cap", "caps", "mL", "tsp", "mg"], 1: ["tab", "mg", "mcg"],
         2: ["mg", "mL", "units"], 3: ["mg", "mL", "g"], 4: ["units", "u", "mL", "mg"],
         5: ["supp", "mg"], 6: ["app", "g"], 7: ["puffs", "puff", "mcg"], 8: ["gtt", "gtts"],
         9: ["gtts", "gtt"]}
FREQS = [("qd", 1), ("daily", 1), ("QD", 1), ("bid", 2), ("BID", 2), ("b.i.d.", 2), ("tid", 3),
         ("TID", 3), ("qid", 4), ("QID", 4), ("q6h", 4), ("Q6H", 4), ("q4h", 6), ("q4-6h", 6),
         ("q8h", 3), ("q12h", 2), ("qhs", 1), ("QHS", 1), ("qam", 1), ("qod", 0), ("q.6h", 4),
         ("twice a day", 2), ("every 8 hours", 3)]
FREQ_CLASSES = [0, 1, 2, 3, 4, 6]
INDICATIONS = ["pain", "nausea", "N/V", "SOB", "HA", "anxiety", "sleep", "BP", "HTN", "BS", "sz",
               "itching", "cough", "UTI", "fever", "CP", "wheezing", "constipation"]
DOSES = ["1", "2", "0.5", "1-2", "i", "ii", "one", "two", "5", "10", "20", "1/2", "2.5", "15", "250", "500"]
VERBS = ["take", "Take", "TAKE", "give", "inject", "instill", "apply", "inhale", "use", "insert", "chew"]


def make_drug_names(n, seed):
    rng = random.Random(seed)
    heads = ["amo", "cef", "met", "lis", "ator", "pred", "hydro", "oxy", "ser", "flu", "lev", "gaba",
             "tra", "clo", "dul", "ven", "esc", "pan", "ome", "sim", "ros", "los", "val", "car", "pro"]
    mids = ["xi", "ta", "lo", "pri", "vo", "ni", "zo", "ce", "ra", "ti", "me", "do", "la", "bu"]
    tails = ["cillin", "zole", "pril", "statin", "sone", "codone", "traline", "xetine", "pentin",
             "dol", "pidogrel", "oxetine", "lafaxine", "prazole", "formin", "sartan", "olol", "mab"]
    names = set()
    while len(names) < n:
        names.add(rng.choice(heads) + rng.choice(mids) * rng.randint(0, 2) + rng.choice(tails))
    return sorted(names)


class SigCorpus:
    """A list of (sig_text, labels) pairs; labels hold the route and frequency classes."""

    def __init__(self, n, drug_names, seed):
        rng = random.Random(seed)
        self.examples = []
        for _ in range(n):
            route, route_id = rng.choice(ROUTES)
            form = rng.choice(FORMS[route_id])
            freq, per_day = rng.choice(FREQS)
            parts = [rng.choice(VERBS)]
            if rng.random() < 0.35:
                parts.append(rng.choice(drug_names))
            parts += [rng.choice(DOSES), form, route, freq]
            prn = rng.random() < 0.3
            if prn:
                parts.append(rng.choice(["prn", "PRN", "p.r.n.", "as needed"]))
                parts.append(rng.choice(["for", "x", ""]) + " " + rng.choice(INDICATIONS))
            if rng.random() < 0.4:
                parts.append(rng.choice(["x", "for", "X"]) + f" {rng.randint(3, 30)} " + rng.choice(["days", "d", "wks"]))
            if rng.random() < 0.2:
                parts.append(rng.choice(["with food", "w/ food", "AC", "pc", "wf", "NTE 4 doses/day"]))
            text = " ".join(p.strip() for p in parts if p.strip())
            self.examples.append((text, {"route": route_id, "freq": FREQ_CLASSES.index(per_day), "prn": int(prn)}))

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        return self.examples[i]
