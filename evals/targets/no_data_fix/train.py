"""Trainer for a deep residual MLP with gradient clipping and an EMA of the weights."""
import argparse
import copy
import random
import tomllib

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import evalkit


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        return x + torch.relu(self.fc(self.norm(x)))


class ResMLP(nn.Module):
    def __init__(self, dim, width, depth, n_classes):
        super().__init__()
        self.stem = nn.Linear(dim, width)
        self.blocks = nn.Sequential(*[Block(width) for _ in range(depth)])
        self.norm = nn.LayerNorm(width)
        self.head = nn.Linear(width, n_classes)

    def forward(self, x):
        return self.head(self.norm(self.blocks(self.stem(x))))


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        d, m, o = cfg["data"], cfg["model"], cfg["optim"]
        g = torch.Generator().manual_seed(cfg["seed"])
        x = torch.randn(d["n_samples"], d["dim"], generator=g)
        y = (x[:, :d["n_classes"]] + 0.5 * torch.randn(d["n_samples"], d["n_classes"], generator=g)).argmax(1)
        self.loader = DataLoader(TensorDataset(x, y), batch_size=d["batch_size"], shuffle=True, generator=g)
        self.model = ResMLP(d["dim"], m["width"], m["depth"], d["n_classes"])
        self.ema = copy.deepcopy(self.model).requires_grad_(False)
        self.params = list(self.model.parameters())
        self.opt = torch.optim.AdamW(self.params, lr=o["lr"], weight_decay=o["weight_decay"])
        self.meter = evalkit.Meter()

    def clip_gradients(self, max_norm):
        total = 0.0
        for p in self.params:
            total += p.grad.norm().item() ** 2
        norm = total ** 0.5
        if norm > max_norm:
            for p in self.params:
                p.grad.mul_(max_norm / norm)
        return norm

    @torch.no_grad()
    def update_ema(self, decay):
        for e, p in zip(self.ema.parameters(), self.params):
            e.mul_(decay).add_(p, alpha=1 - decay)

    def train_step(self, x, y):
        o = self.cfg["optim"]
        loss = nn.functional.cross_entropy(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.clip_gradients(o["max_grad_norm"])
        self.opt.step()
        self.update_ema(o["ema_decay"])
        return loss

    def fit(self):
        t = self.cfg["trainer"]
        for epoch in range(t["epochs"]):
            for x, y in self.loader:
                self.meter.batch((x, y))
                loss = self.train_step(x, y)
                self.meter.step(loss)
                if self.meter.steps % t["log_every"] == 0:
                    print(f"epoch {epoch} step {self.meter.steps} loss {loss.item():.4f}")
                if self.meter.done():
                    return

    def ema_checksum(self):
        return sum(float(p.double().abs().sum()) for p in self.ema.parameters())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config, "rb") as f:
        cfg = tomllib.load(f)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])
    # Small model: intra-op threads cost more in sync than they save.
    torch.set_num_threads(1)

    trainer = Trainer(cfg)
    trainer.fit()
    trainer.meter.report(extra={"ema_checksum": trainer.ema_checksum()})


if __name__ == "__main__":
    main()
