import csv
import datetime as dt

import torch
from torch.utils.data import Dataset

from adherence import proportion_of_days_covered


class PatientAdherenceDataset(Dataset):
    """One item per patient: PDC and refill features per drug class, read from the claims extract."""

    def __init__(self, claims_path, patient_ids, labels, drug_classes, start, end):
        self.claims_path = claims_path
        self.patient_ids = patient_ids
        self.labels = labels
        self.drug_classes = drug_classes
        self.start = start
        self.end = end

    def __len__(self):
        return len(self.patient_ids)

    def load_fills(self, patient_id):
        fills = {c: [] for c in self.drug_classes}
        with open(self.claims_path, newline="") as fh:
            for row in csv.DictReader(fh):
                if row["patient_id"] != patient_id:
                    continue
                fill_date = dt.datetime.strptime(row["fill_date"], "%Y-%m-%d").date()
                fills[row["drug_class"]].append((fill_date, int(row["days_supply"])))
        return fills

    def __getitem__(self, idx):
        pid = self.patient_ids[idx]
        fills = self.load_fills(pid)
        pdc, on_drug, n_fills, period = [], [], [], []
        for cls in self.drug_classes:
            value, days = proportion_of_days_covered(fills[cls], self.start, self.end)
            pdc.append(value)
            on_drug.append(1.0 if fills[cls] else 0.0)
            n_fills.append(len(fills[cls]) / 12.0)
            period.append(days / 365.0)
        features = torch.tensor(pdc + on_drug + n_fills + period, dtype=torch.float32)
        return {"features": features, "label": torch.tensor(float(self.labels[pid])),
                "adherent_classes": sum(1 for v in pdc if v >= 0.8)}
