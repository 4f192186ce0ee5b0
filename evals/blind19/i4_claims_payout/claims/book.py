"""A synthetic policy book (nested JSON documents, as stored in the policy admin system) and claims."""
import json
import random

LINES = ("property", "contents", "liability", "motor", "travel", "cyber")
PERILS = ("fire", "smoke", "flood", "storm", "theft", "collision", "water_leak", "breach",
          "injury", "glass", "vandalism", "subsidence")
CAUSES = ("accidental", "weather", "third_party", "wear_and_tear", "intentional", "war", "unknown")
ITEM_KINDS = ("jewellery", "art", "bicycle", "laptop", "camera", "instrument", "watch")


def _coverage(rng, line, k):
    perils = rng.sample(PERILS, rng.randint(1, 3))
    return {
        "code": f"{line[:4].upper()}.{k:02d}",
        "description": f"{line} cover {k} for " + ", ".join(perils),
        "perils": perils,
        "limit": float(rng.choice([5_000, 10_000, 25_000, 50_000, 100_000, 250_000])),
        "deductible": float(rng.choice([0, 100, 250, 500, 1_000, 2_500])),
        "coinsurance": rng.choice([1.0, 0.9, 0.8, 0.75]),
        "sublimits": [{"peril": p, "limit": float(rng.choice([1_000, 2_500, 5_000, 15_000]))}
                      for p in perils if rng.random() < 0.3],
        "exclusions": [{"peril": rng.choice(perils), "cause": rng.choice(CAUSES),
                        "wording": "loss arising directly or indirectly from the stated cause"}
                       for _ in range(rng.randint(0, 3))],
        "conditions": {"notice_days": rng.choice([14, 30, 60]), "requires_police_report": rng.random() < 0.2},
    }


def _policy(rng, pid, s):
    lines = rng.sample(LINES, rng.randint(*s.SECTIONS_PER_POLICY))
    sections = []
    for line in lines:
        sections.append({
            "line": line,
            "limit": float(rng.choice([100_000, 250_000, 500_000, 1_000_000])),
            "deductible": float(rng.choice([0, 250, 500, 1_000])),
            "coverages": [_coverage(rng, line, k) for k in range(rng.randint(*s.COVERAGES_PER_SECTION))],
        })
    schedule = [{"item_id": f"{pid}-I{j:03d}", "kind": rng.choice(ITEM_KINDS),
                 "value": float(rng.randint(5, 400) * 50), "valuation_date": f"20{rng.randint(15, 24)}-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
                 "line": "contents"} for j in range(rng.randint(*s.SCHEDULE_ITEMS))]
    endorsements = []
    for e in range(rng.randint(*s.ENDORSEMENTS)):
        sec = rng.choice(sections)
        cov = rng.choice(sec["coverages"])
        kind = rng.choice(["raise_limit", "waive_deductible", "add_exclusion", "add_peril"])
        end = {"id": f"{pid}-E{e}", "type": kind, "line": sec["line"], "coverage": cov["code"]}
        if kind == "raise_limit":
            end["amount"] = float(rng.choice([5_000, 10_000, 50_000]))
        elif kind == "add_exclusion":
            end["exclusion"] = {"peril": rng.choice(cov["perils"]), "cause": rng.choice(CAUSES), "wording": "endorsed exclusion"}
        elif kind == "add_peril":
            end["peril"] = rng.choice(PERILS)
        endorsements.append(end)
    return {
        "policy_id": pid,
        "holder": {"name": f"Holder {pid}", "segment": rng.choice(["retail", "sme", "hnw"]),
                   "address": {"country": rng.choice(["DE", "FR", "NL", "ES"]), "zone": rng.randint(1, 9)}},
        "term": {"start": "2025-01-01", "end": "2025-12-31", "currency": "EUR"},
        "sections": sections,
        "schedule": schedule,
        "endorsements": endorsements,
        "aggregate": {"annual_limit": float(rng.choice([500_000, 1_000_000, 2_000_000]))},
    }


def build_policy_store(s):
    """policy_id -> JSON text (the `document` column of the policies table)."""
    rng = random.Random(s.SEED)
    store = {}
    for k in range(s.NUM_POLICIES):
        pid = f"P{k:05d}"
        store[pid] = json.dumps(_policy(rng, pid, s), separators=(",", ":"))
    return store


def generate_claims(s, store):
    rng = random.Random(s.SEED + 1)
    policy_ids = sorted(store)
    claims = []
    for c in range(s.NUM_CLAIMS):
        pid = rng.choice(policy_ids)
        claim = {
            "claim_id": f"C{c:06d}",
            "policy_id": pid,
            "line": rng.choice(LINES),
            "peril": rng.choice(PERILS),
            "cause": rng.choice(CAUSES),
            "loss_amount": round(rng.lognormvariate(8.0, 1.3), 2),
            "days_to_notice": rng.randint(0, 90),
            "police_report": rng.random() < 0.5,
            "item_id": f"{pid}-I{rng.randint(0, 150):03d}" if rng.random() < 0.25 else None,
        }
        claims.append(claim)
    return claims
