"""Loan default prediction: quantile-binned numeric features -> per-feature embeddings -> MLP."""
import argparse
import json

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import evalkit
from binning import fit_bin_edges, value_to_bin


def synth_loans(n, d, missing_rate, seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(n, 6))
    mix = rng.normal(size=(6, d))
    x = z @ mix + 0.5 * rng.normal(size=(n, d))
    x[:, :8] = np.exp(x[:, :8] / 3)  # income, balances, ... are skewed
    x[:, 8:12] = np.round(x[:, 8:12] * 3)  # counts: many ties
    logit = 0.8 * z[:, 0] - 0.6 * z[:, 1] + 0.4 * z[:, 2] * z[:, 3] - 1.0
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.float32)
    x[rng.random((n, d)) < missing_rate] = np.nan
    return x.astype(np.float32), y


class BinnedLoans(Dataset):
    def __init__(self, x, y, max_bins, mask_prob, seed):
        self.x = x
        self.y = y
        self.edges = [fit_bin_edges(x[:, j], max_bins) for j in range(x.shape[1])]
        self.mask_prob = mask_prob
        self.mask_id = max_bins + 1
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        row = self.x[i].tolist()
        bins = [value_to_bin(v, edges) for v, edges in zip(row, self.edges)]
        drop = self.rng.random(len(bins)) < self.mask_prob
        bins = [self.mask_id if m else b for b, m in zip(bins, drop.tolist())]
        return torch.tensor(bins, dtype=torch.long), torch.tensor(self.y[i])


class BinEmbeddingMLP(nn.Module):
    def __init__(self, n_features, n_bins, dim, hidden):
        super().__init__()
        self.emb = nn.Embedding(n_features * n_bins, dim)
        self.register_buffer("offsets", torch.arange(n_features) * n_bins)
        self.mlp = nn.Sequential(nn.Linear(n_features * dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, bins):
        e = self.emb(bins + self.offsets)
        return self.mlp(e.flatten(1)).squeeze(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="loan.json")
    with open(p.parse_args().config) as fh:
        cfg = json.load(fh)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    dc = cfg["data"]
    x, y = synth_loans(dc["n_loans"], dc["n_features"], dc["missing_rate"], cfg["seed"])
    ds = BinnedLoans(x, y, dc["max_bins"], cfg["augment"]["bin_mask_prob"], cfg["seed"] + 1)
    oc = cfg["optim"]
    dl = DataLoader(ds, batch_size=oc["batch_size"], shuffle=True, generator=torch.Generator().manual_seed(cfg["seed"]))
    model = BinEmbeddingMLP(dc["n_features"], dc["max_bins"] + 2, cfg["model"]["embed_dim"], cfg["model"]["hidden"])
    opt = torch.optim.AdamW(model.parameters(), lr=oc["lr"])
    bce = nn.BCEWithLogitsLoss()
    meter = evalkit.Meter()
    n_step, trace = 0, []
    for epoch in range(oc["epochs"]):
        for bins, target in dl:
            meter.batch((bins, target))
            logit = model(bins)
            loss = bce(logit, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            n_step += 1
            if n_step % cfg["log_every"] == 0:
                acc = ((logit > 0).float() == target).float().mean().item()
                trace.append([n_step, round(loss.item(), 6), round(acc, 6)])
                print(f"ep {epoch} step {n_step} bce {loss.item():.4f} acc {acc:.3f}", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"trace": trace, "n_edges": [len(e) for e in ds.edges]})


if __name__ == "__main__":
    main()
