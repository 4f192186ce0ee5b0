"""Classify the origin of sequencing reads (host / bacterial / viral / spike-in) from
trimmed FASTQ records.

    python train.py --config run.toml
"""
import argparse
import tomllib

import numpy as np
import torch
import torch.nn.functional as F

from evalkit import Meter
from readkit.batches import ReadBatches, ReadFeaturizer
from readkit.model import OriginClassifier
from readkit.simulate import ORIGINS, simulate_run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="run.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.set_num_threads(cfg["torch_threads"])
    torch.manual_seed(cfg["seed"])
    rd, tr, op = cfg["reads"], cfg["trim"], cfg["optim"]

    records, labels = simulate_run(rd["count"], rd["length"], cfg["seed"])
    val_records, val_labels = simulate_run(rd["val_count"], rd["length"], cfg["seed"] + 1)
    feat = ReadFeaturizer(tr, cfg["features"]["k"], rd["length"], np.random.default_rng(cfg["seed"] + 2))
    batches = ReadBatches(records, labels, op["batch_size"], feat, seed=cfg["seed"])

    model = OriginClassifier(4 ** cfg["features"]["k"], 3, len(ORIGINS))
    opt = torch.optim.Adam(model.parameters(), lr=op["lr"], weight_decay=op["weight_decay"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=op["epochs"] * len(batches))
    meter = Meter()
    stop = False
    for epoch in range(op["epochs"]):
        tot, n = 0.0, 0
        for batch in batches:
            meter.batch(batch)
            logits = model(batch["kmers"], batch["summary"])
            loss = F.cross_entropy(logits, batch["label"])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            meter.step(loss)
            tot += loss.item()
            n += 1
            if meter.done():
                stop = True
                break
        print(f"epoch {epoch}: loss {tot / max(n, 1):.4f}")
        if stop:
            break

    model.eval()
    correct = total = 0
    val_batches = ReadBatches(val_records, val_labels, 128, feat, seed=0, shuffle=False, drop_last=False)
    with torch.no_grad():
        for batch in val_batches:
            pred = model(batch["kmers"], batch["summary"]).argmax(1)
            correct += int((pred == batch["label"]).sum())
            total += len(pred)
    print(f"val accuracy {correct / total:.3f}")
    meter.report({"val_accuracy": correct / total})


if __name__ == "__main__":
    main()
