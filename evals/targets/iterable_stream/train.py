"""Trainer for a hashed-n-gram sentiment model fed by a text stream."""
import argparse
import random

import numpy as np
import torch
import yaml
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from data import ReviewStream, make_reviews


class HashedBag(nn.Module):
    def __init__(self, n_buckets, dim):
        super().__init__()
        self.embed = nn.EmbeddingBag(n_buckets, dim, mode="mean", padding_idx=0)
        self.head = nn.Linear(dim, 1)

    def forward(self, ids):
        return self.head(self.embed(ids)).squeeze(1)


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        d = cfg["data"]
        texts, labels = make_reviews(d["n_reviews"], d["vocab_words"], d["min_words"],
                                     d["max_words"], cfg["seed"])
        stream = ReviewStream(texts, labels, d["n_buckets"], d["ngram"], d["max_tokens"])
        self.loader = DataLoader(stream, batch_size=d["batch_size"], num_workers=d["num_workers"])
        self.model = HashedBag(d["n_buckets"], cfg["model"]["dim"])
        self.opt = torch.optim.SGD(self.model.parameters(), lr=cfg["optim"]["lr"],
                                   momentum=cfg["optim"]["momentum"])
        self.meter = evalkit.Meter()

    def fit(self):
        t = self.cfg["trainer"]
        for epoch in range(t["epochs"]):
            for batch in self.loader:
                self.meter.batch(batch)
                loss = nn.functional.binary_cross_entropy_with_logits(self.model(batch["ids"]), batch["label"])
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                self.meter.step(loss)
                if self.meter.steps % t["log_every"] == 0:
                    print(f"epoch {epoch} step {self.meter.steps} loss {loss.item():.4f}")
                if self.meter.done():
                    return


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
    trainer.meter.report()


if __name__ == "__main__":
    main()
