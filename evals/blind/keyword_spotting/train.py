"""Keyword spotting on band-energy spectrograms with a tiny 1-D CNN."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import yaml

import evalkit
from data import KeywordClips


def get_model(n_bands, n_classes):
    return nn.Sequential(
        nn.Conv1d(n_bands, 32, kernel_size=3, padding=1),
        nn.ReLU(),
        nn.Conv1d(32, 32, kernel_size=3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool1d(1),
        nn.Flatten(),
        nn.Linear(32, n_classes),
    )


def run(cfg):
    seed = cfg["seed"]
    torch.manual_seed(seed)
    np.random.seed(seed)
    random.seed(seed)
    torch.set_num_threads(1)

    ds = KeywordClips(cfg, seed)
    tcfg = cfg["train"]
    loader = torch.utils.data.DataLoader(
        ds, batch_size=tcfg["batch_size"], shuffle=True, num_workers=tcfg["workers"],
        generator=torch.Generator().manual_seed(seed), drop_last=True)
    model = get_model(cfg["features"]["n_bands"], cfg["dataset"]["keywords"])
    optim = torch.optim.AdamW(model.parameters(), lr=tcfg["lr"])
    loss_fn = nn.CrossEntropyLoss()

    meter = evalkit.Meter()
    losses = []
    stop = False
    for epoch in range(tcfg["epochs"]):
        for x, y in loader:
            meter.batch((x, y))
            out = model(x)
            loss = loss_fn(out, y)
            optim.zero_grad()
            loss.backward()
            optim.step()
            losses.append(loss.item())
            meter.step(loss)
            if meter.done():
                stop = True
                break
        print(f"[epoch {epoch}] mean loss {sum(losses) / max(len(losses), 1):.4f}")
        if stop:
            break
    meter.report(extra={"loss_sum": sum(losses)})


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/kws.yaml")
    a = ap.parse_args()
    with open(a.config) as f:
        run(yaml.safe_load(f))
