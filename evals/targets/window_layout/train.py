"""Train a small MLP that tells a load sensor's operating regime from a window of its series."""
import argparse
import random
import tomllib

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from data import SensorWindows


def build_model(window, hidden, n_classes):
    return nn.Sequential(nn.Linear(window, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config, "rb") as f:
        cfg = tomllib.load(f)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    # Small model: intra-op threads cost more in sync than they save.
    torch.set_num_threads(1)

    d = cfg["data"]
    dataset = SensorWindows(d["n_windows"], d["window"], d["stride"], d["regime_len"], d["n_classes"], seed)
    loader = DataLoader(dataset, batch_size=d["batch_size"], shuffle=True, num_workers=d["num_workers"],
                        generator=torch.Generator().manual_seed(seed))
    model = build_model(d["window"], cfg["model"]["hidden"], d["n_classes"])
    opt = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"], momentum=cfg["optim"]["momentum"])

    meter = evalkit.Meter()
    for epoch in range(cfg["train"]["epochs"]):
        for batch in loader:
            meter.batch(batch)
            # default_collate hands the window over as one tensor per position: put it back as rows.
            x = torch.stack(batch["window"], dim=1).float()
            loss = nn.functional.cross_entropy(model(x), batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            if meter.done():
                break
        print(f"epoch {epoch} loss {loss.item():.4f}")
        if meter.done():
            break
    meter.report()


if __name__ == "__main__":
    main()
