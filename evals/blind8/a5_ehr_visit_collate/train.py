#!/usr/bin/env python
"""Predict heart-failure onset from visit sequences.

Defaults come from a YAML file (--config) and can be overridden on the command line:
    python train.py --config ehr.yaml --lr 1e-3
"""
import argparse
import random

import numpy as np
import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
from ehr.cohort import build_vocab, make_cohort
from ehr.data import VisitCollator, VisitSequenceDataset
from ehr.model import VisitGRU

config_parser = argparse.ArgumentParser(add_help=False)
config_parser.add_argument("-c", "--config", default="", type=str)

parser = argparse.ArgumentParser(description="EHR visit GRU")
parser.add_argument("--seed", type=int, default=0)
parser.add_argument("--num-patients", type=int, default=1000)
parser.add_argument("--vocab-min-count", type=int, default=1)
parser.add_argument("--max-visits", type=int, default=50)
parser.add_argument("--max-codes-per-visit", type=int, default=32)
parser.add_argument("--embed-dim", type=int, default=32)
parser.add_argument("--hidden-dim", type=int, default=64)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--epochs", type=int, default=1)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--grad-clip", type=float, default=0.0)
parser.add_argument("--workers", type=int, default=0)


def parse_args():
    args_config, remaining = config_parser.parse_known_args()
    if args_config.config:
        with open(args_config.config) as f:
            parser.set_defaults(**yaml.safe_load(f))
    return parser.parse_args(remaining)


def main():
    args = parse_args()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    patients = make_cohort(args.num_patients, args.seed)
    vocab, types, parents = build_vocab(patients, args.vocab_min_count)
    print(f"{len(patients)} patients, {len(vocab)} codes, "
          f"{sum(p['label'] for p in patients) / len(patients):.3f} positive", flush=True)
    dataset = VisitSequenceDataset(patients)
    collate = VisitCollator(vocab, types, parents, args.max_visits, args.max_codes_per_visit)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, collate_fn=collate,
                        num_workers=args.workers, generator=torch.Generator().manual_seed(args.seed))
    model = VisitGRU(len(vocab), len(types), len(parents), args.embed_dim, args.hidden_dim)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)

    meter = evalkit.Meter()
    summary = []
    for epoch in range(args.epochs):
        model.train()
        total, n, tp, fp, fn = 0.0, 0, 0, 0, 0
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["codes"], batch["code_types"], batch["parents"], batch["code_mask"], batch["gaps"], batch["lengths"])
            loss = F.binary_cross_entropy_with_logits(logits, batch["labels"])
            optimizer.zero_grad()
            loss.backward()
            if args.grad_clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
            optimizer.step()
            pred = logits.detach() > 0
            gold = batch["labels"] > 0.5
            tp += int((pred & gold).sum())
            fp += int((pred & ~gold).sum())
            fn += int((~pred & gold).sum())
            total += loss.item() * len(gold)
            n += len(gold)
            meter.step(loss)
            if meter.done():
                break
        f1 = 2 * tp / max(2 * tp + fp + fn, 1)
        summary.append({"epoch": epoch, "loss": round(total / n, 6), "f1": round(f1, 6)})
        print(summary[-1], flush=True)
        if meter.done():
            break
    meter.report(extra={"epochs": summary, "vocab": len(vocab)})


if __name__ == "__main__":
    main()
