import argparse
import random
import tomllib

import numpy as np
import torch
from torch import nn

import evalkit
from data import GestureWindows, synth_gestures


class GRUClassifierLite(nn.Module):
    """Conv front-end + mean pooling (a GRU was too slow on CPU)."""

    def __init__(self, axes, n_classes):
        super().__init__()
        self.front = nn.Sequential(nn.Conv1d(axes, 24, 5, stride=2), nn.ReLU(),
                                   nn.Conv1d(24, 24, 5, stride=2), nn.ReLU())
        self.out = nn.Linear(24, n_classes)

    def forward(self, x):
        return self.out(self.front(x).mean(-1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    with open(parser.parse_args().config, "rb") as fh:
        cfg = tomllib.load(fh)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    d = cfg["dataset"]
    x, y = synth_gestures(d["n"], d["axes"], d["steps"], d["n_gestures"], cfg["seed"])
    ds = GestureWindows(x, y, cfg["augment"])
    loader = torch.utils.data.DataLoader(ds, batch_size=cfg["loader"]["batch_size"], shuffle=True,
                                         num_workers=cfg["loader"]["num_workers"], drop_last=True,
                                         generator=torch.Generator().manual_seed(cfg["seed"]))
    model = GRUClassifierLite(d["axes"], d["n_gestures"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])

    meter = evalkit.Meter()
    stats = {"correct": 0, "seen": 0, "input_abs_sum": 0.0}
    for epoch in range(cfg["optim"]["epochs"]):
        for xb, yb in loader:
            meter.batch((xb, yb))
            logits = model(xb)
            loss = nn.functional.cross_entropy(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            stats["correct"] += int((logits.argmax(1) == yb).sum())
            stats["seen"] += len(yb)
            stats["input_abs_sum"] += float(xb.abs().sum())
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra=stats)


if __name__ == "__main__":
    main()
