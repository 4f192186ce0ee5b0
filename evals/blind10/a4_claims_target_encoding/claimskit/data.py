import csv
import math
from dataclasses import dataclass

import numpy as np
import torch
from torch.utils.data import Dataset

from .parsing import days_since_epoch, parse_date, parse_money, parse_percent

NUMERIC = ["log_claim", "log_deductible", "coinsurance", "log_premium", "premium_missing", "tenure_days",
           "report_lag", "incident_dow", "incident_month"]


def read_records(lines):
    """CSV lines -> list of dict rows (header from the first line)."""
    return list(csv.DictReader(lines))


def target_of(row):
    return math.log1p(parse_money(row["paid_amount"]))


@dataclass
class ClaimsBatch:
    numeric: torch.Tensor
    encoded: torch.Tensor
    target: torch.Tensor
    claim_ids: list

    def as_tuple(self):
        return (self.numeric, self.encoded, self.target, self.claim_ids)


class ClaimsDataset(Dataset):
    """Each item parses its raw CSV line and target-encodes its categories with a fitted encoder."""

    def __init__(self, lines, encoder):
        self.header = next(csv.reader([lines[0]]))
        self.lines = lines[1:]
        self.encoder = encoder

    def __len__(self):
        return len(self.lines)

    def _parse(self, line):
        row = dict(zip(self.header, next(csv.reader([line]))))
        claim, deductible = parse_money(row["claim_amount"]), parse_money(row["deductible"])
        premium = parse_money(row["premium"])
        start, incident, report = (parse_date(row[k]) for k in ("policy_start", "incident_date", "report_date"))
        numeric = [
            math.log1p(claim), math.log1p(deductible), parse_percent(row["coinsurance"]),
            0.0 if math.isnan(premium) else math.log1p(premium), float(math.isnan(premium)),
            (incident - start).days / 365.0, float((report - incident).days),
            float(incident.weekday()), float(incident.month),
        ]
        return row, numeric, target_of(row)

    def __getitems__(self, indices):
        out = []
        for idx in indices:
            row, numeric, target = self._parse(self.lines[idx])
            out.append((row["claim_id"], numeric, self.encoder.transform_row(row), target))
        return out

    def __getitem__(self, idx):
        return self.__getitems__([idx])[0]


class ClaimsCollator:
    def __call__(self, items):
        ids = [it[0] for it in items]
        numeric = torch.tensor(np.array([it[1] for it in items], dtype=np.float64), dtype=torch.float32)
        encoded = torch.tensor(np.array([it[2] for it in items], dtype=np.float64), dtype=torch.float32)
        target = torch.tensor([it[3] for it in items], dtype=torch.float32)
        return ClaimsBatch(numeric, encoded, target, ids)
