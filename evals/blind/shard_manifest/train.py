import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import yaml

import evalkit
from catalogue import write_manifest
from data import EpochShuffle, ManifestDataset


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    cfg = yaml.safe_load(open(ap.parse_args().config))
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    write_manifest(cfg["manifest"], cfg["catalogue_size"], cfg["seed"])
    keys = [f"item-{i:07d}" for i in range(0, cfg["catalogue_size"], cfg["catalogue_size"] // cfg["train_items"])]
    keys = keys[: cfg["train_items"]]
    ds = ManifestDataset(cfg["manifest"], keys, cfg["feature_dim"])
    sampler = EpochShuffle(len(ds), cfg["seed"])
    lc = cfg["loader"]
    loader = torch.utils.data.DataLoader(ds, batch_size=lc["batch_size"], sampler=sampler,
                                         num_workers=lc["num_workers"],
                                         persistent_workers=lc["persistent_workers"] and lc["num_workers"] > 0,
                                         generator=torch.Generator().manual_seed(cfg["seed"]))
    model = nn.Sequential(nn.Linear(cfg["feature_dim"], 64), nn.ReLU(), nn.Linear(64, cfg["classes"]))
    opt = torch.optim.SGD(model.parameters(), lr=cfg["train"]["lr"], momentum=0.9)

    meter = evalkit.Meter()
    epoch_acc = []
    for epoch in range(cfg["train"]["epochs"]):
        sampler.set_epoch(epoch)
        right = seen = 0
        for x, y in loader:
            meter.batch((x, y))
            out = model(x)
            loss = nn.functional.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            right += int((out.argmax(1) == y).sum())
            seen += len(y)
            meter.step(loss)
            if meter.done():
                break
        epoch_acc.append(right / seen)
        print(f"epoch {epoch}: acc {right / seen:.3f}")
        if meter.done():
            break
    meter.report(extra={"epoch_acc": epoch_acc})


if __name__ == "__main__":
    main()
