import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import yaml

import evalkit
from data import PatchStore
from prepare import ensure_store


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True)
    return yaml.safe_load(open(p.parse_args().config))


def main():
    cfg = parse()
    random.seed(cfg["seed"]); np.random.seed(cfg["seed"]); torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    ensure_store(cfg["data_root"], cfg["num_patches"], cfg["bands"], cfg["patch"], cfg["classes"], cfg["seed"])

    ds = PatchStore(cfg["data_root"], cfg["num_patches"])
    dl = torch.utils.data.DataLoader(ds, batch_size=cfg["batch_size"], shuffle=True,
                                     num_workers=cfg["num_workers"],
                                     generator=torch.Generator().manual_seed(cfg["seed"]))
    model = nn.Sequential(nn.Flatten(), nn.Linear(cfg["bands"] * cfg["patch"] ** 2, 64), nn.ReLU(),
                          nn.Linear(64, cfg["classes"]))
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    meter = evalkit.Meter()
    right = 0
    for ep in range(cfg["epochs"]):
        for imgs, labels in dl:
            meter.batch((imgs, labels))
            out = model(imgs)
            loss = nn.functional.cross_entropy(out, labels)
            opt.zero_grad(); loss.backward(); opt.step()
            right += (out.argmax(1) == labels).sum().item()
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"right": right})


if __name__ == "__main__":
    main()
