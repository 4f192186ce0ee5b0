"""Trainer for a category classifier that logs top-1/top-5 accuracy every step."""
import argparse
import random

import numpy as np
import torch
import yaml
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import evalkit
from metrics import topk_accuracy


def make_embeddings(n, dim, n_classes, seed):
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(n_classes, dim, generator=g)
    labels = torch.randint(0, n_classes, (n,), generator=g)
    x = centres[labels] + 3.0 * torch.randn(n, dim, generator=g)
    return x, labels


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        d = cfg["data"]
        x, y = make_embeddings(d["n_samples"], d["dim"], d["n_classes"], cfg["seed"])
        self.loader = DataLoader(TensorDataset(x, y), batch_size=d["batch_size"], shuffle=True,
                                 generator=torch.Generator().manual_seed(cfg["seed"]))
        self.model = nn.Sequential(nn.Linear(d["dim"], cfg["model"]["hidden"]), nn.ReLU(),
                                   nn.Linear(cfg["model"]["hidden"], d["n_classes"]))
        self.opt = torch.optim.SGD(self.model.parameters(), lr=cfg["optim"]["lr"],
                                   momentum=cfg["optim"]["momentum"])
        self.history = []  # (top1, top5) per step, shipped to the dashboard
        self.meter = evalkit.Meter()

    def train_step(self, x, y):
        logits = self.model(x)
        loss = nn.functional.cross_entropy(logits, y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.history.append(topk_accuracy(logits, y, k=5))
        return loss

    def fit(self):
        log_every = self.cfg["trainer"]["log_every"]
        for epoch in range(self.cfg["trainer"]["epochs"]):
            for x, y in self.loader:
                self.meter.batch((x, y))
                loss = self.train_step(x, y)
                self.meter.step(loss)
                if self.meter.steps % log_every == 0:
                    top1, top5 = np.mean(self.history[-log_every:], axis=0)
                    print(f"epoch {epoch} step {self.meter.steps} loss {loss.item():.4f} "
                          f"top1 {top1:.3f} top5 {top5:.3f}")
                if self.meter.done():
                    return

    def metric_sum(self):
        return sum(top1 + top5 for top1, top5 in self.history)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])
    # Small model: intra-op threads cost more in sync than they save.
    torch.set_num_threads(1)

    trainer = Trainer(cfg)
    trainer.fit()
    trainer.meter.report(extra={"metric_sum": trainer.metric_sum(), "metric_steps": len(trainer.history)})


if __name__ == "__main__":
    main()
