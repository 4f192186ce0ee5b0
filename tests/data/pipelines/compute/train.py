"""A tiny compute-bound pipeline for perfloop's tests: cheap data, a comparatively wide MLP."""
import argparse
import json

import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    cfg = json.load(open(parser.parse_args().config))
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)  # steady compute on a busy 2-core machine
    features = torch.randn(2048, 256)
    labels = torch.randint(0, 10, (2048,))
    loader = DataLoader(TensorDataset(features, labels), batch_size=cfg["batch_size"], shuffle=True,
                        num_workers=cfg["num_workers"])
    width = cfg["hidden"]
    model = torch.nn.Sequential(torch.nn.Linear(256, width), torch.nn.ReLU(), torch.nn.Linear(width, width),
                                torch.nn.ReLU(), torch.nn.Linear(width, 10))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for _ in range(cfg["epochs"]):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
