"""Predict the category of the latest transaction of a statement window (payee hidden).

    python train.py --ini bank.ini
"""
import argparse
import configparser
import datetime
import math
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Sampler

import evalkit
from qif import CATEGORIES, parse_record, split_records
from statements import make_account


class StatementWindows(Dataset):
    """Indexed by (account, start): the window's records are parsed from the raw QIF text."""

    def __init__(self, qif_texts, window):
        self.records = [split_records(t) for t in qif_texts]
        self.window = window

    def __len__(self):
        return sum(len(r) - self.window + 1 for r in self.records)

    def __getitem__(self, key):
        acct, start = key
        recs = self.records[acct]
        parsed = [parse_record(r) for r in recs[max(0, start - 1):start + self.window]]
        prev = parsed[0][0] if start > 0 else None
        if start > 0:
            parsed = parsed[1:]
        rows = []
        for date, amount, _payee, category, bucket in parsed:
            gap = 0 if prev is None else (date - prev).days
            prev = date
            amt = float(amount)
            rows.append({"bucket": bucket, "category": category,
                         "numeric": [math.copysign(math.log1p(abs(amt)), amt), date.weekday() / 6.0,
                                     (date.day - 1) / 30.0, math.log1p(gap)]})
        return rows


class WindowBatchSampler(Sampler):
    """Random (account, start) windows, `batch_size` per batch, `num_batches` per epoch."""

    def __init__(self, lengths, window, batch_size, num_batches, seed):
        self.lengths, self.window = lengths, window
        self.batch_size, self.num_batches = batch_size, num_batches
        self.rng = random.Random(seed)

    def __len__(self):
        return self.num_batches

    def __iter__(self):
        for _ in range(self.num_batches):
            batch = []
            for _ in range(self.batch_size):
                acct = self.rng.randrange(len(self.lengths))
                batch.append((acct, self.rng.randrange(self.lengths[acct] - self.window + 1)))
            yield batch


def collate_windows(samples):
    bucket = torch.tensor([[r["bucket"] for r in s] for s in samples], dtype=torch.long)
    category = torch.tensor([[r["category"] for r in s] for s in samples], dtype=torch.long)
    numeric = torch.tensor([[r["numeric"] for r in s] for s in samples], dtype=torch.float32)
    target = category[:, -1].clone()
    category[:, -1] = 0
    bucket[:, -1] = 0
    return {"bucket": bucket, "category": category, "numeric": numeric, "target": target}


class CategoryModel(nn.Module):
    def __init__(self, n_buckets, n_categories, dim=32):
        super().__init__()
        self.bucket = nn.Embedding(n_buckets, dim)
        self.category = nn.Embedding(n_categories, dim)
        self.numeric = nn.Linear(4, dim)
        self.mix = nn.Linear(2 * dim, dim)
        self.out = nn.Linear(dim, n_categories)

    def forward(self, batch):
        h = self.bucket(batch["bucket"]) + self.category(batch["category"]) + self.numeric(batch["numeric"])
        h = torch.tanh(h)
        ctx = h[:, :-1].mean(1)
        return self.out(F.relu(self.mix(torch.cat([ctx, h[:, -1]], dim=1))))


# ------------------------------------------------------------------------------------ callbacks
class Callback:
    def on_batch(self, state, batch):
        pass

    def on_step_end(self, state, batch, loss, logits):
        pass

    def on_train_end(self, state):
        pass


class MeterCallback(Callback):
    def __init__(self):
        self.meter = evalkit.Meter()

    def on_batch(self, state, batch):
        self.meter.batch(batch)

    def on_step_end(self, state, batch, loss, logits):
        self.meter.step(loss)
        if self.meter.done():
            state["stop"] = True

    def on_train_end(self, state):
        self.meter.report(extra={"steps": state["step"], "accuracy": state["correct"] / max(1, state["seen"])})


class AccuracyCallback(Callback):
    def on_step_end(self, state, batch, loss, logits):
        state["correct"] += int((logits.argmax(1) == batch["target"]).sum())
        state["seen"] += len(batch["target"])


class PrintCallback(Callback):
    def __init__(self, every):
        self.every = every

    def on_step_end(self, state, batch, loss, logits):
        if state["step"] % self.every == 0:
            print(f"epoch {state['epoch']} step {state['step']} loss {loss.item():.4f} "
                  f"acc {state['correct'] / max(1, state['seen']):.3f}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ini", default="bank.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.ini)
    seed = cfg.getint("run", "seed")
    torch.set_num_threads(1)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    gen = random.Random(seed)
    n_acc = cfg.getint("data", "accounts")
    n_tx = cfg.getint("data", "transactions_per_account")
    texts = [make_account(gen, datetime.date(2023, 1, 1) + datetime.timedelta(days=gen.randrange(60)), n_tx)
             for _ in range(n_acc)]
    window = cfg.getint("data", "window")
    ds = StatementWindows(texts, window)
    sampler = WindowBatchSampler([len(r) for r in ds.records], window, cfg.getint("loader", "batch_size"),
                                 cfg.getint("data", "batches_per_epoch"), seed + 1)
    loader = DataLoader(ds, batch_sampler=sampler, collate_fn=collate_windows,
                        num_workers=cfg.getint("loader", "num_workers"))
    model = CategoryModel(1024, len(CATEGORIES))
    opt = torch.optim.Adam(model.parameters(), lr=cfg.getfloat("optim", "lr"))
    callbacks = [MeterCallback(), AccuracyCallback(), PrintCallback(cfg.getint("run", "log_every"))]
    state = {"epoch": 0, "step": 0, "stop": False, "correct": 0, "seen": 0}
    for epoch in range(cfg.getint("run", "epochs")):
        state["epoch"] = epoch
        for batch in loader:
            for cb in callbacks:
                cb.on_batch(state, batch)
            logits = model(batch)
            loss = F.cross_entropy(logits, batch["target"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            state["step"] += 1
            for cb in callbacks:
                cb.on_step_end(state, batch, loss, logits)
            if state["stop"]:
                break
        if state["stop"]:
            break
    for cb in callbacks:
        cb.on_train_end(state)


if __name__ == "__main__":
    main()
