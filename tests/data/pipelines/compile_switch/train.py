"""A small compute-bound pipeline whose YAML config has a torch.compile switch (off)."""
import argparse
import sys

import torch
import yaml
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    with open(parser.parse_args().config) as handle:
        cfg = yaml.safe_load(handle)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    data = TensorDataset(torch.randn(512, 16), torch.randint(0, 4, (512,)))
    loader = DataLoader(data, batch_size=32, shuffle=True, num_workers=0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    if cfg["model"]["compile"]:
        model = torch.compile(model, backend=cfg["model"]["compile_backend"])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    print(f"model type {type(model).__name__}", file=sys.stderr, flush=True)
    for _ in range(cfg["epochs"]):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    main()
