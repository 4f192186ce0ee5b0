"""Simulated ADT event logs: patients arrive through ED or directly, move between wards, leave."""
import math
import random
from collections import namedtuple

Event = namedtuple("Event", ["time", "seq", "patient", "kind", "ward_from", "ward_to"])

# where an admitted patient goes after ED, and onward transfer probabilities
PATHWAYS = {
    "ED": [("MED", 0.5), ("SURG", 0.25), ("ICU", 0.08), ("PAEDS", 0.12), (None, 0.05)],
    "ICU": [("STEPDOWN", 0.7), ("MED", 0.2), (None, 0.1)],
    "STEPDOWN": [("MED", 0.6), ("SURG", 0.2), (None, 0.2)],
}
MEAN_STAY_H = {"ED": 5.0, "MED": 96.0, "SURG": 72.0, "ICU": 60.0, "STEPDOWN": 40.0, "PAEDS": 50.0}


def _choose(rng, options):
    r, acc = rng.random(), 0.0
    for ward, p in options:
        acc += p
        if r < acc:
            return ward
    return options[-1][0]


def simulate_site(site_id, days, admits_per_day, seed):
    rng = random.Random(seed * 7919 + site_id)
    scale = rng.uniform(0.7, 1.3)
    horizon = days * 24.0
    raw = []
    t, patient = 0.0, 0
    while True:
        # diurnal arrival rate, peaking around midday
        rate = scale * admits_per_day / 24.0 * (1.0 + 0.6 * math.sin(2 * math.pi * (t % 24 - 8) / 24))
        t += rng.expovariate(max(rate, 0.05))
        if t >= horizon:
            break
        patient += 1
        ward = "ED" if rng.random() < 0.7 else rng.choice(["MED", "SURG", "PAEDS"])
        raw.append((t, patient, "admit", None, ward))
        now = t
        while True:
            now += rng.expovariate(1.0 / MEAN_STAY_H[ward])
            nxt = _choose(rng, PATHWAYS[ward]) if ward in PATHWAYS else (
                "ICU" if rng.random() < 0.04 else None)
            if nxt is None:
                raw.append((now, patient, "discharge", ward, None))
                break
            raw.append((now, patient, "transfer", ward, nxt))
            ward = nxt
    raw.sort(key=lambda e: (e[0], e[1]))
    return [Event(tm, i, p, k, wf, wt) for i, (tm, p, k, wf, wt) in enumerate(raw)]
