"""Train a deep, narrow residual MLP at a small batch on the GPU (a control-policy network)."""
import argparse
import random
import tomllib

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import evalkit


def make_states(n, dim, n_actions, seed):
    """Observations and the action a fixed random expert takes in each."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, dim, generator=g)
    expert = torch.randn(dim, n_actions, generator=g)
    return x, (torch.tanh(x) @ expert).argmax(dim=1)


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, width)
        self.fc2 = nn.Linear(width, width)

    def forward(self, x):
        return x + self.fc2(nn.functional.silu(self.fc1(self.norm(x)))) * 0.5


class PolicyNet(nn.Module):
    def __init__(self, dim, width, depth, n_actions):
        super().__init__()
        self.stem = nn.Linear(dim, width)
        self.blocks = nn.ModuleList(Block(width) for _ in range(depth))
        self.head = nn.Linear(width, n_actions)

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x)


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
    torch.set_num_threads(1)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    d, m = cfg["data"], cfg["model"]
    x, y = make_states(d["n_samples"], d["dim"], d["n_actions"], seed)
    loader = DataLoader(TensorDataset(x, y), batch_size=d["batch_size"], shuffle=True, drop_last=True,
                        num_workers=d["num_workers"], pin_memory=device.type == "cuda",
                        generator=torch.Generator().manual_seed(seed))

    model = PolicyNet(d["dim"], m["width"], m["depth"], d["n_actions"]).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])

    meter = evalkit.Meter()
    for epoch in range(cfg["train"]["epochs"]):
        for xb, yb in loader:
            meter.batch((xb, yb))
            xb = xb.to(device, non_blocking=True)
            yb = yb.to(device, non_blocking=True)
            loss = nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad(set_to_none=True)
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
