"""Intent classifier on sentence embeddings; logs epoch-to-date accuracy / macro-F1 each step."""
import argparse
import random
import tomllib

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

import evalkit
from metrics import EpochMetrics


def make_embeddings(n, dim, k, seed):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(k, dim, generator=g) * 1.5
    y = torch.randint(0, k, (n,), generator=g)
    x = centers[y] + torch.randn(n, dim, generator=g) * 2.0
    return x, y


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        x, y = make_embeddings(cfg["num_samples"], cfg["feature_dim"], cfg["num_classes"], cfg["seed"])
        self.loader = DataLoader(TensorDataset(x, y), batch_size=cfg["loader"]["batch_size"],
                                 shuffle=True, num_workers=cfg["loader"]["num_workers"],
                                 generator=torch.Generator().manual_seed(cfg["seed"]))
        self.model = nn.Sequential(nn.Linear(cfg["feature_dim"], 128), nn.ReLU(),
                                   nn.Linear(128, cfg["num_classes"]))
        self.opt = torch.optim.SGD(self.model.parameters(), lr=cfg["train"]["lr"], momentum=0.9)
        self.metrics = EpochMetrics(cfg["num_classes"])
        self.history = {"acc": [], "macro_f1": []}

    def fit(self, meter):
        log_every = self.cfg["train"]["log_every"]
        step = 0
        for epoch in range(self.cfg["train"]["epochs"]):
            self.metrics.reset()
            for feats, labels in self.loader:
                meter.batch((feats, labels))
                logits = self.model(feats)
                loss = nn.functional.cross_entropy(logits, labels)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()

                self.metrics.update(labels, logits.argmax(dim=1))
                acc = self.metrics.accuracy()
                f1 = self.metrics.macro_f1()
                self.history["acc"].append(acc)
                self.history["macro_f1"].append(f1)
                step += 1
                if step % log_every == 0:
                    print(f"epoch {epoch} step {step}: loss {loss.item():.4f} acc {acc:.4f} macro-F1 {f1:.4f}")
                meter.step(loss)
                if meter.done():
                    return
            cm = self.metrics.confusion()
            print(f"epoch {epoch} confusion diagonal: {[cm[i][i] for i in range(len(cm))]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    with open(ap.parse_args().config, "rb") as f:
        cfg = tomllib.load(f)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    trainer = Trainer(cfg)
    meter = evalkit.Meter()
    trainer.fit(meter)
    h = trainer.history
    meter.report(extra={
        "acc_sum": sum(h["acc"]),
        "macro_f1_sum": sum(h["macro_f1"]),
        "last_acc": h["acc"][-1],
        "last_macro_f1": h["macro_f1"][-1],
        "confusion": trainer.metrics.confusion(),
    })


if __name__ == "__main__":
    main()
