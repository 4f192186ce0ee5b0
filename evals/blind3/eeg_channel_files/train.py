import argparse
import os
import tomllib

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from dataset import MotorImageryTrials
from eegnet import EEGNet1d
from export import CLASSES, write_export


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    with open(ap.parse_args().config, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.set_num_threads(1)
    tc = cfg["train"]
    torch.manual_seed(tc["seed"])

    root = cfg["paths"]["root"]
    if not os.path.isdir(root):
        write_export(root, cfg["export"])
    ds = MotorImageryTrials(root, cfg["preprocess"]["window"], cfg["preprocess"]["eps"], tc["seed"])
    dl = DataLoader(ds, batch_size=tc["batch_size"], shuffle=True, drop_last=True,
                    generator=torch.Generator().manual_seed(tc["seed"]))
    model = EEGNet1d(cfg["export"]["n_channels"], len(CLASSES), tc["F1"], tc["D"])
    model(torch.zeros(2, cfg["export"]["n_channels"], cfg["preprocess"]["window"]))  # materialise LazyLinear
    opt = torch.optim.AdamW(model.parameters(), lr=tc["lr"], weight_decay=tc["weight_decay"])
    meter = evalkit.Meter()
    summary = []
    for epoch in range(tc["epochs"]):
        model.train()
        running, hits, seen = 0.0, 0, 0
        for x, y in dl:
            meter.batch((x, y))
            out = model(x)
            loss = F.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            running += loss.item() * len(y)
            hits += (out.argmax(1) == y).sum().item()
            seen += len(y)
            if meter.done():
                break
        summary.append({"epoch": epoch, "loss": round(running / seen, 6), "acc": round(hits / seen, 6)})
        print(summary[-1], flush=True)
        if meter.done():
            break
    meter.report(extra={"epochs": summary})


if __name__ == "__main__":
    main()
