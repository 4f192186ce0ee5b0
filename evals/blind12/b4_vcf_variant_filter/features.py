"""Site-level features from a parsed record restricted to a subset of samples."""
import math

INFO_FEATURES = ("DP", "MQ", "QD", "FS", "SOR")


def site_features(rec, subset):
    calls = [rec["calls"][i] for i in subset]
    called = [c for c in calls if c["GT"] is not None]
    n_called = len(called)
    dosages = [sum(1 for a in c["GT"] if a > 0) for c in called]
    alt_alleles = sum(dosages)
    af = alt_alleles / (2 * n_called) if n_called else 0.0
    het = sum(1 for d in dosages if d == 1)
    het_rate = het / n_called if n_called else 0.0
    expected_het = 2.0 * af * (1.0 - af)
    balances = []
    for c, d in zip(called, dosages):
        if d == 1 and c["AD"] is not None:
            total = sum(c["AD"])
            if total > 0:
                balances.append(c["AD"][0] / total)
    mean_ab = sum(balances) / len(balances) if balances else 0.5
    gqs = [c["GQ"] for c in called if c["GQ"] is not None]
    mean_gq = sum(gqs) / len(gqs) if gqs else 0.0
    info = rec["info"]
    feats = [
        math.log1p(info.get("DP", 0)), info.get("MQ", 0.0) / 60.0, info.get("QD", 0.0) / 40.0,
        info.get("FS", 0.0) / 60.0, info.get("SOR", 0.0) / 5.0,
        math.log10(rec["qual"] + 1.0) if rec["qual"] is not None else 0.0,
        af, het_rate, n_called / len(calls), het_rate - expected_het, mean_ab, mean_gq / 99.0,
        float(len(rec["ref"]) == 1 and all(len(a) == 1 for a in rec["alt"])),
        float(len(rec["alt"]) > 1), float(bool(info.get("DB", False))),
    ]
    genotypes = [3 if c["GT"] is None else sum(1 for a in c["GT"] if a > 0) for c in calls]
    gq = [0 if c["GQ"] is None else c["GQ"] for c in calls]
    return feats, genotypes, gq
