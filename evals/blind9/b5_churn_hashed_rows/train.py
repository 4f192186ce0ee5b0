"""Churn classifier on CSV-like dict rows with hashed ids, feature crosses and missing values.

    python train.py settings.py
"""
import runpy
import sys
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from features import CategoryStep, HashStep, NumericStep, RowPipeline
from rows import make_rows


@dataclass
class TabularBatch:
    cat_ids: torch.Tensor
    hash_ids: torch.Tensor
    numeric: torch.Tensor
    target: torch.Tensor


class ChurnRows(Dataset):
    def __init__(self, rows, pipeline):
        self.rows = rows
        self.pipeline = pipeline

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, idx):
        row = self.rows[idx]
        ids, floats = self.pipeline(row)
        return ids, floats, int(row["churned"])


def make_collate(n_cat):
    def collate(items):
        ids = [it[0] for it in items]
        return TabularBatch(
            cat_ids=torch.tensor([r[:n_cat] for r in ids], dtype=torch.long),
            hash_ids=torch.tensor([r[n_cat:] for r in ids], dtype=torch.long),
            numeric=torch.tensor([it[1] for it in items], dtype=torch.float32),
            target=torch.tensor([it[2] for it in items], dtype=torch.float32),
        )
    return collate


class WideAndDeep(nn.Module):
    def __init__(self, n_cat, cat_card, n_hash, hash_buckets, n_numeric, dim, hidden):
        super().__init__()
        self.cat_card = cat_card
        self.cat_emb = nn.Embedding(n_cat * cat_card, dim)
        self.hash_emb = nn.Embedding(hash_buckets, dim)
        self.wide = nn.Embedding(hash_buckets, 1)
        self.register_buffer("offsets", torch.arange(n_cat) * cat_card)
        layers, d = [], (n_cat + n_hash) * dim + n_numeric
        for h in hidden:
            layers += [nn.Linear(d, h), nn.ReLU()]
            d = h
        layers.append(nn.Linear(d, 1))
        self.deep = nn.Sequential(*layers)

    def forward(self, b: TabularBatch):
        cat = self.cat_emb(b.cat_ids + self.offsets).flatten(1)
        hsh = self.hash_emb(b.hash_ids).flatten(1)
        deep = self.deep(torch.cat([cat, hsh, b.numeric], dim=1)).squeeze(1)
        return deep + self.wide(b.hash_ids).sum(dim=(1, 2))


def main(settings_path):
    cfg = runpy.run_path(settings_path)
    torch.manual_seed(cfg["SEED"])
    torch.set_num_threads(1)

    rows = make_rows(cfg["N_ROWS"], cfg["SEED"])
    pipeline = RowPipeline(
        [NumericStep(cfg["NUMERIC"], cfg["N_QUANTILE_BUCKETS"]),
         CategoryStep(cfg["CATEGORICAL"], cfg["MIN_CATEGORY_COUNT"]),
         HashStep(cfg["HASHED"], cfg["CROSSES"], cfg["HASH_BUCKETS"])],
        cfg["CATEGORICAL"], cfg["HASHED"], cfg["NUMERIC"], cfg["CROSSES"]).fit(rows)
    n_cat = len(cfg["CATEGORICAL"])
    loader = DataLoader(ChurnRows(rows, pipeline), batch_size=cfg["BATCH_SIZE"], shuffle=True,
                        num_workers=cfg["NUM_WORKERS"], collate_fn=make_collate(n_cat),
                        generator=torch.Generator().manual_seed(cfg["SEED"]))
    model = WideAndDeep(n_cat, 64, len(cfg["HASHED"]) + len(cfg["CROSSES"]), cfg["HASH_BUCKETS"],
                        2 * len(cfg["NUMERIC"]), cfg["EMBED_DIM"], cfg["HIDDEN"])
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["LR"])

    meter = Meter()
    history = []
    global_step = 0
    for epoch in range(cfg["EPOCHS"]):
        model.train()
        for step, batch in enumerate(loader):
            meter.batch(batch.__dict__)
            logits = model(batch)
            loss = F.binary_cross_entropy_with_logits(logits, batch.target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            global_step += 1
            if global_step % cfg["LOG_EVERY"] == 0:
                with torch.no_grad():
                    pred = (logits > 0).float()
                    acc = (pred == batch.target).float().mean().item()
                history.append({"epoch": epoch, "step": global_step, "loss": round(loss.item(), 5), "acc": round(acc, 4)})
                print(history[-1], flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"history": history, "positive_rate": round(sum(r["churned"] == "1" for r in rows) / len(rows), 4)})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "settings.py")
