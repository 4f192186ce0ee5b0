"""Fault classification on SCADA windows."""
import argparse
import tomllib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from scada.series import simulate
from scada.windows import ScadaWindows


class TCN(nn.Module):
    def __init__(self, c_in, n_cls=4):
        super().__init__()
        self.c1 = nn.Conv1d(c_in, 24, 5, stride=2, padding=2)
        self.c2 = nn.Conv1d(24, 32, 5, padding=4, dilation=2)
        self.out = nn.Linear(32, n_cls)

    def forward(self, x):
        x = F.relu(self.c1(x))
        x = F.max_pool1d(x, 4)
        x = F.relu(self.c2(x))
        return self.out(x.amax(-1))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="turbine.toml")
    with open(p.parse_args().config, "rb") as fh:
        cfg = tomllib.load(fh)
    seed = cfg["run"]["seed"]
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    X, state = simulate(cfg["data"]["length"], cfg["data"]["channels"], seed)
    ds = ScadaWindows(X, state, cfg["data"], seed + 1)
    dl = DataLoader(ds, batch_size=cfg["loader"]["batch_size"], shuffle=True, drop_last=True,
                    num_workers=cfg["loader"]["num_workers"],
                    generator=torch.Generator().manual_seed(seed))
    model = TCN(4 * cfg["data"]["channels"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    meter = evalkit.Meter()

    max_steps = cfg["run"]["max_steps"]
    step, it, logged = 0, iter(dl), []
    while step < max_steps and not meter.done():
        try:
            x, y = next(it)
        except StopIteration:
            it = iter(dl)
            continue
        meter.batch((x, y))
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        step += 1
        if step % cfg["run"]["log_every"] == 0:
            logged.append([step, round(loss.item(), 5)])
            print("step", step, "loss", logged[-1][1])
    meter.report(extra={"logged": logged})


if __name__ == "__main__":
    main()
