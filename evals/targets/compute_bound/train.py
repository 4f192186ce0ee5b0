"""Train a deep MLP on pre-built dense features."""
import argparse
import random

import numpy as np
import torch
import yaml
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import evalkit


def make_data(n, n_features, n_classes, seed):
    """Labels come from a fixed random teacher, so there is signal to learn."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, n_features, generator=g)
    teacher = torch.randn(n_features, n_classes, generator=g)
    return x, (x @ teacher).argmax(dim=1)


def build_model(n_in, hidden, depth, n_out):
    layers, width = [], n_in
    for _ in range(depth):
        layers += [nn.Linear(width, hidden), nn.GELU()]
        width = hidden
    layers.append(nn.Linear(width, n_out))
    return nn.Sequential(*layers)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    # One intra-op thread: on a shared 2-core box a second OpenMP thread stalls whenever
    # a neighbour holds the other core, and step times swing 5x.
    torch.set_num_threads(1)

    d, m = cfg["data"], cfg["model"]
    x, y = make_data(d["n_samples"], d["n_features"], d["n_classes"], seed)
    loader = DataLoader(TensorDataset(x, y), batch_size=d["batch_size"], shuffle=True,
                        generator=torch.Generator().manual_seed(seed))

    model = build_model(d["n_features"], m["hidden"], m["depth"], d["n_classes"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])

    meter = evalkit.Meter()
    for epoch in range(cfg["train"]["epochs"]):
        correct = 0
        for xb, yb in loader:
            meter.batch((xb, yb))
            logits = model(xb)
            loss = nn.functional.cross_entropy(logits, yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            correct += (logits.argmax(dim=1) == yb).sum().item()
            meter.step(loss)
            if meter.done():
                break
        print(f"epoch {epoch} loss {loss.item():.4f} train acc {correct / len(x):.3f}")
        if meter.done():
            break
    meter.report()


if __name__ == "__main__":
    main()
