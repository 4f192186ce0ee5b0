import json
from datetime import datetime

import torch
from torch.utils.data import Dataset

from records import EMP, GRADES, HOME, PURPOSES, STATES


def _lookup(values):
    return {v: i for i, v in enumerate(sorted(set(values)))}


def one_hot(index, size):
    return [1.0 if j == index else 0.0 for j in range(size)]


class LoanJsonLines(Dataset):
    """Each item parses its JSON line and turns the fields into a flat float vector."""

    NUMERIC_SCALE = {"loan_amnt": 35000.0, "annual_inc": 250000.0, "dti": 40.0}

    def __init__(self, lines):
        self.lines = lines
        self.tables = {
            "grade": _lookup(GRADES),
            "purpose": _lookup(PURPOSES),
            "addr_state": _lookup(STATES),
            "home_ownership": _lookup(HOME),
        }
        self.emp_table = {e: i for i, e in enumerate(EMP)}

    def __len__(self):
        return len(self.lines)

    def featurize(self, rec):
        feats = []
        feats.append(rec["loan_amnt"] / self.NUMERIC_SCALE["loan_amnt"])
        feats.append(min(rec["annual_inc"], 250000.0) / self.NUMERIC_SCALE["annual_inc"])
        feats.append(float(rec["dti"]) / self.NUMERIC_SCALE["dti"])
        feats.append(float(rec["int_rate"].strip().rstrip("%")) / 100.0)
        feats.append(float(rec["revol_util"].rstrip("%")) / 100.0)
        feats.append(1.0 if int(rec["term"].strip().split()[0]) == 60 else 0.0)
        emp = rec["emp_length"]
        feats.append(-1.0 if emp == "n/a" else self.emp_table[emp] / 10.0)
        issued = datetime.strptime(rec["issue_d"], "%b-%Y")
        feats.append((issued.year - 2012) / 6.0 + (issued.month - 1) / 72.0)
        feats.append(float(rec["delinq_2yrs"]))
        for field, table in self.tables.items():
            feats.extend(one_hot(table[rec[field]], len(table)))
        return feats

    def __getitem__(self, idx):
        rec = json.loads(self.lines[idx])
        x = torch.tensor(self.featurize(rec), dtype=torch.float32)
        y = torch.tensor(float(rec["default"]), dtype=torch.float32)
        return x, y

    @property
    def n_features(self):
        return 9 + sum(len(t) for t in self.tables.values())
