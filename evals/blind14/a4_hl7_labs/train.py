"""Condition classifier over HL7 lab panels.

    python train.py labs.toml
"""
import random
import sys
import tomllib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import BatchSampler, DataLoader

import evalkit
from labstream import (ClassBalancedSampler, CodeSet, LabPanelDataset, build_code_table, collate_panels,
                       make_messages)


class PanelMLP(nn.Module):
    def __init__(self, n_slots, hidden, n_classes):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3 * n_slots, hidden), nn.ReLU(), nn.Dropout(0.1),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))

    def forward(self, batch):
        return self.net(torch.cat([batch.values, batch.present, batch.severity], dim=1))


def main():
    with open(sys.argv[1], "rb") as fh:
        cfg = tomllib.load(fh)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    rng = random.Random(seed)
    codeset = CodeSet(build_code_table(rng))
    messages, labels = make_messages(rng, codeset.entries, cfg["data"]["n_messages"])
    dataset = LabPanelDataset(messages, labels, codeset, cfg["data"]["drop_prob"])

    tr = cfg["train"]
    sampler = ClassBalancedSampler(labels, tr["samples_per_epoch"], torch.Generator().manual_seed(seed))
    loader = DataLoader(dataset, batch_sampler=BatchSampler(sampler, tr["batch_size"], drop_last=True),
                        collate_fn=collate_panels, num_workers=tr["num_workers"])
    model = PanelMLP(len(dataset[0][0]), cfg["model"]["hidden"], 4)
    opt = torch.optim.AdamW(model.parameters(), lr=tr["lr"])
    meter = evalkit.Meter()

    per_epoch = []
    for epoch in range(tr["epochs"]):
        model.train()
        total, n = 0.0, 0
        for batch in loader:
            meter.batch(batch.as_tuple())
            loss = F.cross_entropy(model(batch), batch.labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            total += loss.item()
            n += 1
            if meter.done():
                break
        per_epoch.append(round(total / max(n, 1), 6))
        if meter.done():
            break
    meter.report({"epoch_loss": per_epoch, "codes": len(codeset.entries)})


if __name__ == "__main__":
    main()
