"""Train a rhythm classifier on windowed heartbeat features."""
import argparse
import json
import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from data import BeatDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    # Small model: intra-op threads cost more in sync than they save.
    torch.set_num_threads(1)

    d = cfg["data"]
    dataset = BeatDataset(d["n_beats"], d["length"], d["window"], d["stride"], d["n_classes"], seed)
    loader = DataLoader(dataset, batch_size=d["batch_size"], shuffle=True, num_workers=d["num_workers"],
                        generator=torch.Generator().manual_seed(seed))
    n_windows = (d["length"] - d["window"]) // d["stride"] + 1
    model = nn.Sequential(nn.Linear(2 * n_windows, cfg["model"]["hidden"]), nn.ReLU(),
                          nn.Linear(cfg["model"]["hidden"], d["n_classes"]))
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])

    meter = evalkit.Meter()
    for epoch in range(cfg["train"]["epochs"]):
        for batch in loader:
            meter.batch(batch)
            features = torch.cat([batch["level"], batch["line_length"]], dim=1)
            loss = nn.functional.cross_entropy(model(features), batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            if meter.steps % cfg["train"]["log_every"] == 0:
                print(f"epoch {epoch} step {meter.steps} loss {loss.item():.4f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report()


if __name__ == "__main__":
    main()
