import argparse
import json
import random

import numpy as np
import torch
import torch.nn as nn

import evalkit
from data import SpectraTable, simulate_spectra


def build(cfg):
    x, y = simulate_spectra(cfg["n_spectra"], cfg["n_channels"], cfg["seed"])
    ds = SpectraTable(x, y, cfg["clip_sigma"])
    dl = torch.utils.data.DataLoader(ds, batch_size=cfg["batch_size"], shuffle=True,
                                     num_workers=cfg["num_workers"],
                                     generator=torch.Generator().manual_seed(cfg["seed"]))
    net = nn.Sequential(nn.Linear(cfg["n_channels"], cfg["hidden"]), nn.GELU(),
                        nn.Linear(cfg["hidden"], 1))
    return dl, net


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    cfg = json.load(open(ap.parse_args().config))
    random.seed(cfg["seed"]); np.random.seed(cfg["seed"]); torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    dl, net = build(cfg)
    opt = torch.optim.Adam(net.parameters(), lr=cfg["lr"])
    meter = evalkit.Meter()
    abs_err_sum = 0.0
    finished = False
    epoch = 0
    while epoch < cfg["epochs"] and not finished:
        for batch in dl:
            meter.batch(batch)
            pred = net(batch["spectrum"])
            loss = nn.functional.mse_loss(pred, batch["target"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            abs_err_sum += (pred.detach() - batch["target"]).abs().sum().item()
            meter.step(loss)
            if meter.done():
                finished = True
                break
        epoch += 1
    meter.report(extra={"abs_err_sum": abs_err_sum})
