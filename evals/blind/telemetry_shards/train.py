import argparse
import json
import random

import numpy as np
import torch
from torch import nn

import evalkit
from data import TelemetryShard, build_shard

p = argparse.ArgumentParser()
p.add_argument("--config", required=True)
cfg = json.load(open(p.parse_args().config))

random.seed(cfg["seed"])
np.random.seed(cfg["seed"])
torch.manual_seed(cfg["seed"])
torch.set_num_threads(1)

shard = TelemetryShard(build_shard(cfg["records"], cfg["channels"], cfg["samples_per_channel"], cfg["seed"]))
loader = torch.utils.data.DataLoader(shard, batch_size=cfg["batch_size"], shuffle=True,
                                     num_workers=cfg["loader_workers"],
                                     generator=torch.Generator().manual_seed(cfg["seed"]))

model = nn.Sequential(
    nn.Conv1d(cfg["channels"], 16, 9, stride=4), nn.ReLU(),
    nn.Conv1d(16, 16, 5, stride=2), nn.ReLU(),
    nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(16, 3))
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])

meter = evalkit.Meter()
n_ok = 0
done = False
for epoch in range(cfg["epochs"]):
    for x, y in loader:
        meter.batch((x, y))
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        n_ok += int((logits.argmax(1) == y).sum())
        meter.step(loss)
        if meter.done():
            done = True
            break
    if done:
        break
meter.report(extra={"n_ok": n_ok})
