"""Endorsement resolution and claim adjudication over the nested policy document."""
import copy
from collections import namedtuple

Decision = namedtuple("Decision", "status payout limit deductible coinsurance coverage_code reason n_matching")

STATUSES = ("denied", "partial", "full")


def apply_endorsements(policy):
    """Return a copy of the policy with its endorsements folded into the coverages."""
    resolved = copy.deepcopy(policy)
    by_code = {(sec["line"], cov["code"]): cov for sec in resolved["sections"] for cov in sec["coverages"]}
    for end in resolved["endorsements"]:
        cov = by_code.get((end["line"], end["coverage"]))
        if cov is None:
            continue
        if end["type"] == "raise_limit":
            cov["limit"] += end["amount"]
        elif end["type"] == "waive_deductible":
            cov["deductible"] = 0.0
        elif end["type"] == "add_exclusion":
            cov["exclusions"].append(end["exclusion"])
        elif end["type"] == "add_peril" and end["peril"] not in cov["perils"]:
            cov["perils"].append(end["peril"])
    return resolved


def find_section(policy, line):
    return next((sec for sec in policy["sections"] if sec["line"] == line), None)


def is_excluded(coverage, claim):
    return any(ex["peril"] == claim["peril"] and ex["cause"] == claim["cause"] for ex in coverage["exclusions"])


def effective_limit(section, coverage, peril):
    limit = min(coverage["limit"], section["limit"])
    for sub in coverage["sublimits"]:
        if sub["peril"] == peril:
            limit = min(limit, sub["limit"])
    return limit


def scheduled_value(policy, item_id):
    for item in policy["schedule"]:
        if item["item_id"] == item_id:
            return item["value"]
    return None


def adjudicate(policy, claim):
    """Walk section -> coverages -> exclusions/conditions -> limits, and pay the best coverage."""
    section = find_section(policy, claim["line"])
    if section is None:
        return Decision("denied", 0.0, 0.0, 0.0, 0.0, "", "line_not_covered", 0)
    matching = [cov for cov in section["coverages"] if claim["peril"] in cov["perils"]]
    if not matching:
        return Decision("denied", 0.0, 0.0, section["deductible"], 0.0, "", "peril_not_covered", 0)
    amount = claim["loss_amount"]
    if claim["item_id"] is not None:
        value = scheduled_value(policy, claim["item_id"])
        if value is not None:
            amount = min(amount, value)
    best = None
    for cov in matching:
        if is_excluded(cov, claim):
            continue
        cond = cov["conditions"]
        if cond["requires_police_report"] and not claim["police_report"]:
            continue
        if claim["days_to_notice"] > cond["notice_days"]:
            continue
        limit = effective_limit(section, cov, claim["peril"])
        deductible = max(cov["deductible"], section["deductible"])
        payout = min(max(amount - deductible, 0.0) * cov["coinsurance"], limit)
        if best is None or payout > best.payout:
            best = Decision("", payout, limit, deductible, cov["coinsurance"], cov["code"], "", len(matching))
    if best is None:
        return Decision("denied", 0.0, 0.0, section["deductible"], 0.0, "", "excluded_or_condition", len(matching))
    if best.payout <= 0.0:
        return best._replace(status="denied", reason="below_deductible")
    status = "full" if best.payout >= claim["loss_amount"] else "partial"
    return best._replace(status=status, reason="paid")
