"""Synthetic pharmacy claims extract: one row per dispensing event, sorted by fill date."""
import csv
import datetime as dt

import numpy as np

FIELDS = ["rx_id", "patient_id", "fill_date", "ndc", "drug_class", "days_supply", "quantity",
          "pharmacy_id"]
NDC_PREFIX = {"statin": "00071", "ras_antagonist": "00006", "beta_blocker": "00378",
              "oral_diabetes": "00093", "ssri": "00049"}


def write_claims_extract(path, n_patients, classes, start, end, seed):
    """Write the extract and return {patient_id: readmitted (0/1)} outcome labels."""
    rng = np.random.default_rng(seed)
    horizon = (end - start).days + 1
    rows, labels = [], {}
    for p in range(n_patients):
        pid = f"P{100000 + 37 * p:07d}"
        adherence = rng.beta(4.0, 1.6)  # latent: fraction of supply actually refilled on time
        n_classes = int(rng.integers(1, 4))
        on = rng.choice(len(classes), size=n_classes, replace=False)
        for c in on:
            supply = int(rng.choice([30, 30, 30, 60, 90]))
            day = int(rng.integers(0, 90))
            while day < horizon:
                # early refills overlap (carried forward); late refills leave gaps
                gap = supply * (1.0 + rng.normal(0.0, 0.15)) / max(adherence, 0.2) - supply
                rows.append((start + dt.timedelta(days=day), pid, classes[c], supply,
                             int(rng.integers(1, 40))))
                day += max(1, int(round(supply + gap)))
        risk = 1.0 / (1.0 + np.exp(6.0 * (adherence - 0.65)))
        labels[pid] = int(rng.random() < risk)
    rows.sort(key=lambda r: (r[0], r[1]))
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(FIELDS)
        for i, (date, pid, cls, supply, pharm) in enumerate(rows):
            w.writerow([f"RX{i:08d}", pid, date.isoformat(), f"{NDC_PREFIX[cls]}-{(i * 7919) % 10000:04d}-01",
                        cls, supply, supply, f"PH{pharm:03d}"])
    return labels
