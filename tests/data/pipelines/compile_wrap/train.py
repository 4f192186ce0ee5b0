"""A small compute-bound pipeline configured by a Python file of `key = value` lines, no compile switch."""
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import config


def build_model(width):
    return nn.Sequential(nn.Linear(16, width), nn.GELU(), nn.Linear(width, 4))


def main():
    torch.manual_seed(config.seed)
    torch.set_num_threads(1)
    data = TensorDataset(torch.randn(512, 16), torch.randint(0, 4, (512,)))
    loader = DataLoader(data, batch_size=config.batch_size, shuffle=True, num_workers=config.num_workers)
    net = build_model(config.width)
    opt = torch.optim.AdamW(net.parameters(), lr=config.lr)
    print(f"model type {type(net).__name__}", file=sys.stderr, flush=True)
    for _ in range(config.epochs):
        for x, y in loader:
            loss = nn.functional.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()


if __name__ == "__main__":
    main()
