import csv
import datetime as dt
import math

import torch
from torch.utils.data import Dataset

from make_claims import CHANNELS, PRODUCTS, REGIONS


def money(s):
    return float(s.replace("$", "").replace(",", ""))


def parse_row(row):
    p0 = dt.datetime.strptime(row["policy_start"], "%Y-%m-%d")
    inc = dt.datetime.strptime(row["incident_date"], "%Y-%m-%d")
    rep = dt.datetime.strptime(row["report_date"], "%Y-%m-%d")
    amount, premium = money(row["claim_amount"]), money(row["premium"])
    feats = [
        (inc - p0).days / 365.0,
        (rep - inc).days / 30.0,
        math.log1p(amount) / 10.0,
        math.log1p(premium) / 10.0,
        amount / premium / 10.0,
        int(row["age"]) / 100.0,
        int(row["prior_claims"]) / 5.0,
        inc.weekday() / 6.0,
        (inc.month - 1) / 11.0,
        float(rep.weekday() >= 5),
    ]
    for vocab, key in ((REGIONS, "region"), (CHANNELS, "channel"), (PRODUCTS, "product")):
        onehot = [0.0] * len(vocab)
        onehot[vocab.index(row[key])] = 1.0
        feats.extend(onehot)
    return feats, float(row["fraud"])


class ClaimsCSV(Dataset):
    """Rows are kept as the csv module returns them and parsed on access."""

    def __init__(self, path):
        with open(path, newline="") as fh:
            self.rows = list(csv.DictReader(fh))

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        feats, target = parse_row(self.rows[idx])
        return torch.tensor(feats, dtype=torch.float32), torch.tensor(target, dtype=torch.float32)
