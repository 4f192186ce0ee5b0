"""Train a small 1-D CNN activity classifier on IMU windows."""
import argparse
import random
import tomllib

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from data import IMUWindows, collate_windows


def build_model(channels, width, n_classes):
    return nn.Sequential(
        nn.Conv1d(channels, width, kernel_size=5, padding=2), nn.ReLU(), nn.MaxPool1d(4),
        nn.Conv1d(width, width, kernel_size=5, padding=2), nn.ReLU(),
        nn.AdaptiveAvgPool1d(1), nn.Flatten(),
        nn.Linear(width, n_classes),
    )


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
    dataset = IMUWindows(d["n_windows"], d["channels"], d["window"], d["n_classes"], seed)
    loader = DataLoader(dataset, batch_size=d["batch_size"], shuffle=True,
                        num_workers=d["num_workers"], collate_fn=collate_windows,
                        generator=torch.Generator().manual_seed(seed))
    model = build_model(d["channels"], cfg["model"]["width"], d["n_classes"])
    opt = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"],
                          momentum=cfg["optim"]["momentum"])

    meter = evalkit.Meter()
    for epoch in range(cfg["train"]["epochs"]):
        for windows, labels in loader:
            meter.batch((windows, labels))
            loss = nn.functional.cross_entropy(model(windows), labels)
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
