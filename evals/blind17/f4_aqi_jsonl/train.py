"""Predict a station's official daily AQI category from the last 24 hours of its sensor log."""
import argparse
import random
import tomllib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from aqkit import StationBatchSampler, StationWindows, collate_windows
from aqkit.aqi import CATEGORIES, POLLUTANTS


class AQIRecurrent(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.cat_embed = nn.Embedding(len(CATEGORIES) + 1, 4)
        self.gru = nn.GRU(2 * len(POLLUTANTS) + 4, hidden, batch_first=True)
        self.out = nn.Linear(hidden, len(CATEGORIES))

    def forward(self, aqi, valid, cats):
        x = torch.cat([aqi, valid, self.cat_embed(cats + 1)], dim=-1)
        _, h = self.gru(x)
        return self.out(h[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="aq.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    dc, lc, tc = cfg["data"], cfg["loader"], cfg["train"]
    dataset = StationWindows(dc["stations"], dc["hours"], dc["window"], seed)
    sampler = StationBatchSampler(len(dataset), lc["batch_size"], lc["batches_per_epoch"],
                                  torch.Generator().manual_seed(seed))
    loader = DataLoader(dataset, batch_sampler=sampler, num_workers=lc["num_workers"],
                        collate_fn=collate_windows)

    model = AQIRecurrent(tc["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=tc["lr"])
    meter = evalkit.Meter()
    confusion = np.zeros((len(CATEGORIES), len(CATEGORIES)), dtype=np.int64)

    for epoch in range(tc["epochs"]):
        running = 0.0
        for i, batch in enumerate(loader):
            meter.batch(vars(batch))
            logits = model(batch.aqi, batch.valid, batch.category)
            loss = F.cross_entropy(logits, batch.label)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            running += loss.item()
            np.add.at(confusion, (batch.label.numpy(), logits.argmax(1).numpy()), 1)
            if meter.done():
                break
        print(f"epoch {epoch}: mean loss {running / (i + 1):.4f}")
        if meter.done():
            break
    meter.report({"confusion": confusion.tolist(), "epochs": epoch + 1})


if __name__ == "__main__":
    main()
