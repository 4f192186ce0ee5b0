import math

import torch
from torch.utils.data import Dataset

from .cohort import parent_code


class VisitSequenceDataset(Dataset):
    def __init__(self, patients):
        self.patients = patients

    def __len__(self):
        return len(self.patients)

    def __getitem__(self, idx):
        p = self.patients[idx]
        return {"visits": p["visits"], "days": p["days"], "label": p["label"]}


class VisitCollator:
    """Pads a batch of patients to [B, V, C] code ids (+ code types), with a code mask, a
    visit mask, log-scaled gaps between visits and lengths, sorted by number of visits
    (longest first) for pack_padded_sequence. Keeps the most recent `max_visits` visits and
    the first `max_codes` codes of each visit."""

    def __init__(self, vocab, types, parents, max_visits, max_codes):
        self.vocab = vocab
        self.types = types
        self.parents = parents
        self.max_visits = max_visits
        self.max_codes = max_codes
        self.unk = vocab["<unk>"]

    @staticmethod
    def normalize(code):
        """Claims feeds mix case, stray whitespace and dotless ICD-10 codes ("E119");
        the vocabulary has "KIND:VALUE" upper-case codes with the ICD dot after 3 chars."""
        kind, _, value = code.strip().partition(":")
        value = value.upper().replace(" ", "")
        if kind == "D" and "." not in value and len(value) > 3:
            value = value[:3] + "." + value[3:]
        return f"{kind.upper()}:{value}"

    def code_type(self, code):
        return self.types.get(code.split(":", 1)[0], 0)

    def parent_id(self, code):
        return self.parents.get(parent_code(code), self.unk)

    def __call__(self, batch):
        batch = sorted(batch, key=lambda s: min(len(s["visits"]), self.max_visits), reverse=True)
        visits = [s["visits"][-self.max_visits:] for s in batch]
        days = [s["days"][-self.max_visits:] for s in batch]
        V = max(len(v) for v in visits)
        C = min(self.max_codes, max(len(codes) for v in visits for codes in v))
        codes_out, types_out, parents_out, code_mask, visit_mask, gaps_out, lengths = [], [], [], [], [], [], []
        for pv, pd in zip(visits, days):
            p_codes, p_types, p_parents, p_mask = [], [], [], []
            for codes in pv:
                codes = [self.normalize(c) for c in codes[:C]]
                ids = [self.vocab.get(c, self.unk) for c in codes]
                tys = [self.code_type(c) for c in codes]
                par = [self.parent_id(c) for c in codes]
                pad = C - len(ids)
                p_codes.append(ids + [0] * pad)
                p_types.append(tys + [0] * pad)
                p_parents.append(par + [0] * pad)
                p_mask.append([True] * len(ids) + [False] * pad)
            for _ in range(V - len(pv)):
                p_codes.append([0] * C)
                p_types.append([0] * C)
                p_parents.append([0] * C)
                p_mask.append([False] * C)
            gaps = [0.0] + [math.log1p(b - a) for a, b in zip(pd, pd[1:])]
            codes_out.append(p_codes)
            types_out.append(p_types)
            parents_out.append(p_parents)
            code_mask.append(p_mask)
            visit_mask.append([i < len(pv) for i in range(V)])
            gaps_out.append(gaps + [0.0] * (V - len(pv)))
            lengths.append(len(pv))
        return {
            "codes": torch.tensor(codes_out, dtype=torch.long),
            "code_types": torch.tensor(types_out, dtype=torch.long),
            "parents": torch.tensor(parents_out, dtype=torch.long),
            "code_mask": torch.tensor(code_mask, dtype=torch.bool),
            "visit_mask": torch.tensor(visit_mask, dtype=torch.bool),
            "gaps": torch.tensor(gaps_out, dtype=torch.float32),
            "lengths": torch.tensor(lengths, dtype=torch.long),
            "labels": torch.tensor([float(s["label"]) for s in batch], dtype=torch.float32),
        }
