import json
import math

import torch
from torch.utils.data import Dataset

from .book import CAUSES, LINES, PERILS
from .policy import STATUSES, adjudicate, apply_endorsements


def one_hot(value, vocab):
    return [1.0 if value == v else 0.0 for v in vocab]


class ClaimsDataset(Dataset):
    """Claims joined with their policy document; each item is adjudicated against the policy."""

    def __init__(self, claims, policy_store):
        self.claims = claims
        self.policy_store = policy_store

    def __len__(self):
        return len(self.claims)

    def load_policy(self, policy_id):
        return apply_endorsements(json.loads(self.policy_store[policy_id]))

    def featurize(self, claim, policy, decision):
        segment = policy["holder"]["segment"]
        return (
            [math.log1p(claim["loss_amount"]) / 10.0, claim["days_to_notice"] / 90.0, float(claim["police_report"]),
             float(claim["item_id"] is not None), decision.n_matching / 3.0,
             math.log1p(decision.limit) / 15.0, math.log1p(decision.deductible) / 10.0, decision.coinsurance]
            + one_hot(claim["line"], LINES) + one_hot(claim["peril"], PERILS) + one_hot(claim["cause"], CAUSES)
            + one_hot(segment, ("retail", "sme", "hnw"))
        )

    def __getitem__(self, idx):
        claim = self.claims[idx]
        policy = self.load_policy(claim["policy_id"])
        decision = adjudicate(policy, claim)
        return {
            "features": torch.tensor(self.featurize(claim, policy, decision), dtype=torch.float32),
            "label": STATUSES.index(decision.status),
            "log_payout": math.log1p(decision.payout),
        }

    @property
    def num_features(self):
        return 8 + len(LINES) + len(PERILS) + len(CAUSES) + 3
