"""Synthetic oncology registry export (JSON lines) and its parsing."""
import json
import math

import numpy as np
import torch
from torch.utils.data import Dataset

STAGES = {"I": 0, "II": 1, "III": 2, "IV": 3}


def synth_registry(rng, n, n_biomarkers):
    """One JSON object per patient, as exported: follow-up in days, event flag, covariates."""
    beta = rng.normal(0, 0.4, n_biomarkers)
    lines = []
    for i in range(n):
        age = float(np.clip(rng.normal(63, 11), 25, 95))
        stage = ["I", "II", "III", "IV"][int(rng.choice(4, p=[0.3, 0.3, 0.25, 0.15]))]
        markers = rng.normal(0, 1, n_biomarkers)
        lp = 0.03 * (age - 63) + 0.5 * STAGES[stage] + float(markers @ beta)
        # Weibull event time (days), uniform administrative censoring plus dropout
        t_event = 700.0 * (-math.log(rng.random()) / math.exp(lp)) ** (1 / 1.4)
        t_censor = min(float(rng.uniform(200, 1800)), float(rng.exponential(2500)))
        time = max(1, int(round(min(t_event, t_censor))))
        lines.append(json.dumps({
            "patient_id": f"PT-{i:06d}", "age": round(age, 1), "sex": str(rng.choice(["F", "M"])),
            "stage": stage, "biomarkers": [round(float(m), 4) for m in markers],
            "followup_days": time, "status": "deceased" if t_event <= t_censor else "censored"}))
    return lines


def parse_registry(lines):
    xs, times, events = [], [], []
    for line in lines:
        rec = json.loads(line)
        onehot = [1.0 if STAGES[rec["stage"]] == k else 0.0 for k in range(4)]
        xs.append([(rec["age"] - 63.0) / 11.0, 1.0 if rec["sex"] == "F" else 0.0] + onehot + rec["biomarkers"])
        times.append(rec["followup_days"])
        events.append(1 if rec["status"] == "deceased" else 0)
    return (torch.tensor(xs, dtype=torch.float32), torch.tensor(times, dtype=torch.float32),
            torch.tensor(events, dtype=torch.float32))


class SurvivalDataset(Dataset):
    def __init__(self, x, time, event):
        self.x, self.time, self.event = x, time, event

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.time[i], self.event[i]


def collate_list(items):
    x, t, e = zip(*items)
    return [torch.stack(x), torch.stack(t), torch.stack(e)]
