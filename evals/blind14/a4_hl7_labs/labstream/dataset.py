"""Map-style dataset of lab panels, a class-balanced sampler and the batch collate."""
import math
from dataclasses import dataclass

import torch
from torch.utils.data import Dataset, Sampler

from .codes import ANALYTES, SLOTS
from .hl7 import parse_message, parse_range, parse_value

CONVERT = {a[1]: (a[5], a[6]) for a in ANALYTES}
SEVERITY = {"LL": -2, "L": -1, "N": 0, "": 0, "H": 1, "HH": 2}


@dataclass
class LabBatch:
    values: torch.Tensor  # (B, n_slots) range-normalised values
    present: torch.Tensor  # (B, n_slots) 1 where observed (and not dropped)
    severity: torch.Tensor  # (B, n_slots) abnormal flag as -2..2
    labels: torch.Tensor  # (B,)

    def as_tuple(self):
        return self.values, self.present, self.severity, self.labels


def abnormal_flag(value, low, high, given):
    if given in SEVERITY and given:
        return given
    if high is not None and value > high:
        return "HH" if value > 2 * high else "H"
    if low is not None and value < low:
        return "LL" if value < 0.5 * low else "L"
    return "N"


class LabPanelDataset(Dataset):
    def __init__(self, messages, labels, codeset, drop_prob):
        self.messages = messages
        self.labels = labels
        self.codeset = codeset
        self.drop_prob = drop_prob

    def __len__(self):
        return len(self.messages)

    def observations(self, raw):
        """[(slot, normalised value, severity)] for the OBX segments we can map."""
        obs = []
        for seg in parse_message(raw):
            if seg.name != "OBX" or seg.get(2) != "NM":
                continue
            entry = self.codeset.lookup(seg.get(3, 2), seg.get(3, 0))
            if entry is None or entry.loinc not in SLOTS:
                continue
            value, comparator = parse_value(seg.get(5))
            if value is None:
                continue
            low, high = parse_range(seg.get(7))
            if low is None and high is None:
                low, high = entry.low, entry.high
            unit = seg.get(6)
            si_unit, factor = CONVERT[entry.loinc]
            if si_unit is not None and unit == si_unit:
                value *= factor
                low = low * factor if low is not None else None
                high = high * factor if high is not None else None
            flag = abnormal_flag(value, low, high, seg.get(8))
            if low is not None and high is not None and high > low:
                norm = (value - low) / (high - low)
            elif high is not None:
                norm = value / high
            else:
                norm = value / low if low else value
            if comparator:
                norm = norm * (0.5 if comparator.startswith("<") else 1.5)
            obs.append((SLOTS[entry.loinc], math.tanh(norm - 0.5) * 2.0, SEVERITY[flag]))
        return obs

    def __getitem__(self, idx):
        obs = self.observations(self.messages[idx])
        drop = torch.rand(len(obs)).tolist()
        values = [0.0] * len(SLOTS)
        present = [0.0] * len(SLOTS)
        severity = [0.0] * len(SLOTS)
        for (slot, v, sev), u in zip(obs, drop):
            if u < self.drop_prob:
                continue
            values[slot], present[slot], severity[slot] = v, 1.0, float(sev)
        return values, present, severity, self.labels[idx]


class ClassBalancedSampler(Sampler):
    """Draws indices with probability inversely proportional to their class frequency."""

    def __init__(self, labels, num_samples, generator):
        counts = {}
        for y in labels:
            counts[y] = counts.get(y, 0) + 1
        self.weights = torch.tensor([1.0 / counts[y] for y in labels], dtype=torch.double)
        self.num_samples = num_samples
        self.generator = generator

    def __iter__(self):
        yield from torch.multinomial(self.weights, self.num_samples, replacement=True,
                                     generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


def collate_panels(samples):
    values, present, severity, labels = zip(*samples)
    return LabBatch(torch.tensor(values, dtype=torch.float32), torch.tensor(present, dtype=torch.float32),
                    torch.tensor(severity, dtype=torch.float32), torch.tensor(labels, dtype=torch.long))
