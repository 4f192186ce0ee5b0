"""Chirp-vs-noise classifier on whitened strain."""
import random
import sys
import tomllib

import numpy as np
import torch
import torch.nn.functional as F

import evalkit
from gwtools.dataset import BatchIterator, StrainDataset
from gwtools.model import ChirpNet


def main(path):
    with open(path, "rb") as fh:
        cfg = tomllib.load(fh)
    seed = cfg["seed"]
    torch.set_num_threads(1)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    ds = StrainDataset({**cfg["data"], **cfg["whitening"]}, seed)
    batches = BatchIterator(ds, cfg["train"]["batch_size"], seed + 1)
    model = ChirpNet()
    opt = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
    meter = evalkit.Meter()
    step = 0
    for epoch in range(cfg["train"]["epochs"]):
        for x, y in batches:
            meter.batch((x, y))
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            if step % cfg["train"]["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "gw.toml")
