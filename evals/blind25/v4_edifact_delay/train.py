"""Predict the arrival delay of a container voyage from its EDIFACT manifest.

    python train.py --cfg edi_delay.toml
"""
import argparse
import tomllib

import torch
import torch.nn.functional as F

from edi.batching import BatchIterator, ManifestDataset
from edi.features import FEATURE_NAMES
from edi.generate import build_manifests
from edi.model import make_regressor
from evalkit import Meter

parser = argparse.ArgumentParser()
parser.add_argument("--cfg", default="edi_delay.toml")
args = parser.parse_args()
with open(args.cfg, "rb") as f:
    cfg = tomllib.load(f)

run, data_cfg, loader_cfg = cfg["run"], cfg["data"], cfg["loader"]
torch.set_num_threads(run["intra_op_threads"])
torch.manual_seed(run["seed"])

texts, delays = build_manifests(run["seed"], data_cfg["n_messages"], data_cfg["min_containers"],
                                data_cfg["max_containers"])
print(f"{len(texts)} manifests, {sum(map(len, texts)) / len(texts) / 1024:.1f} KiB each on average")
train_set = ManifestDataset(texts, delays)
batches = BatchIterator(train_set, loader_cfg["batch_size"], shuffle=loader_cfg["shuffle"],
                        drop_last=loader_cfg["drop_last"], seed=run["seed"])

model = make_regressor(len(FEATURE_NAMES), cfg["model"]["hidden"], cfg["model"]["dropout"])
optimizer = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"],
                             weight_decay=cfg["optim"]["weight_decay"])
meter = Meter()
step = 0
mae_hist = []
for epoch in range(run["epochs"]):
    model.train()
    abs_err, count = 0.0, 0
    for x, y in batches:
        meter.batch((x, y))
        pred = model(x)
        loss = F.huber_loss(pred, y, delta=cfg["optim"]["huber_delta"])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.step(loss)
        step += 1
        abs_err += float((pred.detach() - y).abs().sum()) * 24.0
        count += len(y)
        if step % run["log_interval"] == 0:
            print(f"epoch {epoch} step {step} huber {loss.item():.4f} mae_h {abs_err / count:.2f}")
        if meter.done():
            break
    mae_hist.append(round(abs_err / max(count, 1), 3))
    if meter.done():
        break

meter.report({"epoch_mae_hours": mae_hist})
