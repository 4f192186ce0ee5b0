"""Card-fraud scoring with per-user velocity features (MLP + categorical embeddings)."""
import argparse
import csv
import io
import itertools
import random
import runpy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler

import evalkit
from features import VelocityFeatures
from ledger import CATEGORIES, COUNTRIES, synth_ledger


class TransactionBatches(Dataset):
    """Indexed by a list of row indices (used with a BatchSampler and batch_size=None)."""

    def __init__(self, rows, featurizer):
        self.rows = rows
        self.featurizer = featurizer
        self.cat_ids = {c: i for i, c in enumerate(CATEGORIES)}
        self.country_ids = {c: i for i, c in enumerate(sorted(set(COUNTRIES)))}

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, indices):
        rows = [self.rows[i] for i in indices]
        cats = [[self.cat_ids[r["merchant_category"]], self.country_ids[r["country"]]] for r in rows]
        feats = [self.featurizer.transform_one(r) for r in rows]
        labels = [float(r["is_fraud"]) for r in rows]
        return [torch.tensor(cats, dtype=torch.long), torch.tensor(feats, dtype=torch.float32),
                torch.tensor(labels, dtype=torch.float32)]


class FraudMLP(nn.Module):
    def __init__(self, n_feats, n_cats, n_countries, embed_dim, hidden):
        super().__init__()
        self.cat = nn.Embedding(n_cats, embed_dim)
        self.country = nn.Embedding(n_countries, embed_dim)
        self.norm = nn.BatchNorm1d(n_feats)
        self.mlp = nn.Sequential(nn.Linear(n_feats + 2 * embed_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, cats, feats):
        x = torch.cat([self.norm(feats), self.cat(cats[:, 0]), self.country(cats[:, 1])], dim=1)
        return self.mlp(x).squeeze(1)


def forever(loader):
    while True:
        yield from loader


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    args = ap.parse_args()
    S = runpy.run_path(args.settings)

    random.seed(S["SEED"])
    np.random.seed(S["SEED"])
    torch.manual_seed(S["SEED"])
    torch.set_num_threads(1)

    text = synth_ledger(S["SEED"], S["N_USERS"], S["N_TRANSACTIONS"], S["START_DATE"], S["DAYS"], S["SHARDS"])
    rows = list(csv.DictReader(io.StringIO(text)))
    featurizer = VelocityFeatures(S["WINDOWS_SECONDS"]).fit(rows)
    dataset = TransactionBatches(rows, featurizer)
    sampler = BatchSampler(RandomSampler(dataset, generator=torch.Generator().manual_seed(S["SEED"] + 1)),
                           batch_size=S["BATCH_SIZE"], drop_last=True)
    loader = DataLoader(dataset, sampler=sampler, batch_size=None, num_workers=S["NUM_WORKERS"])

    n_feats = 4 + 2 * len(S["WINDOWS_SECONDS"]) + 2
    model = FraudMLP(n_feats, len(CATEGORIES), len(set(COUNTRIES)), S["EMBED_DIM"], S["HIDDEN"])
    optimizer = torch.optim.Adam(model.parameters(), lr=S["LR"])
    pos_weight = torch.tensor(10.0)
    meter = evalkit.Meter()

    tp = fp = fn = 0
    for step, (cats, feats, labels) in enumerate(itertools.islice(forever(loader), S["MAX_STEPS"]), start=1):
        meter.batch([cats, feats, labels])
        logits = model(cats, feats)
        loss = F.binary_cross_entropy_with_logits(logits, labels, pos_weight=pos_weight)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.step(loss)
        pred = logits.detach() > 0
        tp += int((pred & (labels > 0)).sum())
        fp += int((pred & (labels == 0)).sum())
        fn += int((~pred & (labels > 0)).sum())
        if step % S["LOG_EVERY"] == 0:
            print(f"step {step} loss {loss.item():.4f} tp {tp} fp {fp} fn {fn}")
        if meter.done():
            break
    meter.report({"tp": tp, "fp": fp, "fn": fn})


if __name__ == "__main__":
    main()
