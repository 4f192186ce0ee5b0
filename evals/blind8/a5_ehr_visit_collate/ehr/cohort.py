"""Synthetic claims cohort: each patient is a sequence of visits, each visit a set of codes
(ICD-10 diagnoses "D:", procedures "P:", ATC drugs "M:"), with visit days since enrolment."""
import itertools
import random

_DIAG_CHAPTERS = "ABCDEFGHIJKLMNOR"
_HF_RISK = ["D:I10", "D:E11.9", "D:I25.10", "D:N18.3", "D:E78.5", "M:C09AA05", "M:C07AB07", "M:A10BA02"]
_HF_MARKERS = ["D:I50.9", "D:I50.22", "M:C03CA01", "P:93306"]


def _code_pool(rng):
    pool = []
    for ch in _DIAG_CHAPTERS:
        for i in range(60):
            pool.append(f"D:{ch}{rng.randint(0, 99):02d}.{rng.randint(0, 9)}")
    for i in range(250):
        pool.append(f"P:{rng.randint(10000, 99999)}")
    for i in range(300):
        pool.append(f"M:{rng.choice('ABCJMNR')}{rng.randint(1, 16):02d}{rng.choice('ABCD')}{rng.choice('ABCX')}{rng.randint(1, 20):02d}")
    return sorted(set(pool))


def make_cohort(num_patients, seed):
    rng = random.Random(seed)
    pool = _code_pool(rng)
    weights = [1.0 / (1 + i) ** 0.8 for i in range(len(pool))]
    cum = list(itertools.accumulate(weights))
    patients = []
    for pid in range(num_patients):
        risk = rng.random()
        n_visits = rng.randint(3, 36)
        day = rng.randint(0, 60)
        visits, days = [], []
        chronic = [c for c in _HF_RISK if rng.random() < 0.6 * risk]
        for v in range(n_visits):
            n_codes = rng.randint(2, 20)
            codes = rng.choices(pool, cum_weights=cum, k=n_codes)
            codes += [c for c in chronic if rng.random() < 0.5]
            if rng.random() < 0.02:
                codes.append(f"D:Z{rng.randint(0, 99):02d}.{rng.randint(0, 9)}")  # rare, out of vocabulary
            visits.append(list(dict.fromkeys(codes)))
            days.append(day)
            day += max(1, int(rng.expovariate(1 / (45 - 30 * risk))))
        score = 2.5 * risk + 0.3 * len(chronic) + (0.04 * n_visits) + rng.gauss(0, 0.5)
        label = 1 if score > 2.7 else 0
        if label and rng.random() < 0.3:
            # some positives already carry an early marker code (leakage-ish, as in real claims)
            visits[-1].append(rng.choice(_HF_MARKERS))
        patients.append({"patient_id": f"P{pid:05d}", "visits": visits, "days": days, "label": label})
    return patients


def build_vocab(patients, min_count):
    counts = {}
    for p in patients:
        for visit in p["visits"]:
            for c in visit:
                counts[c] = counts.get(c, 0) + 1
    vocab = {"<pad>": 0, "<unk>": 1}
    for code in sorted(c for c, n in counts.items() if n >= min_count):
        vocab[code] = len(vocab)
    types = {"<pad>": 0, "D": 1, "P": 2, "M": 3}
    # parent groups: ICD category (before the dot), CPT section (first 3 digits), ATC level 4
    parents = {"<pad>": 0, "<unk>": 1}
    for code in vocab:
        if code.startswith("<"):
            continue
        parent = parent_code(code)
        if parent not in parents:
            parents[parent] = len(parents)
    return vocab, types, parents


def parent_code(code):
    kind, rest = code.split(":", 1)
    if kind == "D":
        return "D:" + rest.split(".")[0]
    if kind == "P":
        return "P:" + rest[:3]
    return "M:" + rest[:5]
