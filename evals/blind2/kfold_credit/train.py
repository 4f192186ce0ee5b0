"""5-fold cross-validated credit default model."""
import argparse
import tomllib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from credit import CreditRows, make_table


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2 ** 32
    np.random.seed(worker_seed)


class CreditNet(nn.Module):
    def __init__(self, n_numeric, cat_levels, hidden, dropout):
        super().__init__()
        self.embeds = nn.ModuleList([nn.Embedding(k, 4) for k in cat_levels])
        self.mlp = nn.Sequential(nn.Linear(n_numeric + 4 * len(cat_levels), hidden), nn.ReLU(),
                                 nn.Dropout(dropout), nn.Linear(hidden, 1))

    def forward(self, numeric, categorical):
        emb = [e(categorical[:, j]) for j, e in enumerate(self.embeds)]
        return self.mlp(torch.cat([numeric] + emb, dim=1)).squeeze(1)


def evaluate(model, loader):
    model.eval()
    losses, correct, n = [], 0, 0
    with torch.no_grad():
        for batch in loader:
            logit = model(batch["numeric"], batch["categorical"])
            losses.append(F.binary_cross_entropy_with_logits(logit, batch["default"], reduction="sum").item())
            correct += ((logit > 0).float() == batch["default"]).sum().item()
            n += len(logit)
    model.train()
    return sum(losses) / n, correct / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    with open(ap.parse_args().config, "rb") as f:
        cfg = tomllib.load(f)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    d, cv, ld = cfg["data"], cfg["cv"], cfg["loader"]
    numeric, cats, target = make_table(d["rows"], d["numeric"], d["categorical"], cfg["seed"])
    folds = np.array_split(np.random.default_rng(cfg["seed"]).permutation(d["rows"]), cv["folds"])

    meter = evalkit.Meter()
    results = []
    for k in range(cv["folds"]):
        val_idx = folds[k]
        train_idx = np.concatenate([folds[j] for j in range(cv["folds"]) if j != k])
        train_ds = CreditRows(numeric, cats, target, train_idx)
        val_ds = CreditRows(numeric, cats, target, val_idx, stats=train_ds.stats)
        model = CreditNet(d["numeric"], d["categorical"], cfg["model"]["hidden"], cfg["model"]["dropout"])
        opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
        g = torch.Generator().manual_seed(cfg["seed"] + k)

        for epoch in range(cv["epochs_per_fold"]):
            train_loader = DataLoader(train_ds, batch_size=ld["batch_size"], shuffle=True, generator=g,
                                      num_workers=ld["num_workers"], worker_init_fn=seed_worker)
            val_loader = DataLoader(val_ds, batch_size=ld["val_batch_size"], shuffle=False,
                                    num_workers=ld["num_workers"], worker_init_fn=seed_worker)
            for batch in train_loader:
                meter.batch(batch)
                logit = model(batch["numeric"], batch["categorical"])
                loss = F.binary_cross_entropy_with_logits(logit, batch["default"])
                opt.zero_grad()
                loss.backward()
                opt.step()
                meter.step(loss)
                if meter.done():
                    break
            val_loss, val_acc = evaluate(model, val_loader)
            results.append({"fold": k, "epoch": epoch, "val_logloss": val_loss, "val_acc": val_acc})
            print(f"fold {k} epoch {epoch}: val logloss {val_loss:.4f} acc {val_acc:.3f}")
            if meter.done():
                break
        if meter.done():
            break

    per_fold = {}
    for r in results:
        per_fold[r["fold"]] = r["val_acc"]
    print(f"cv accuracy: {np.mean(list(per_fold.values())):.4f}")
    meter.report(extra={"results": results, "cv_accuracy": float(np.mean(list(per_fold.values())))})


if __name__ == "__main__":
    main()
