"""Click-through-rate model trained from JSON click logs."""
import argparse
import json
import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from data import ClickLog, make_log


class CTRModel(nn.Module):
    def __init__(self, n_users, n_items, n_dense, embed_dim, hidden):
        super().__init__()
        self.user = nn.Embedding(n_users, embed_dim)
        self.item = nn.Embedding(n_items, embed_dim)
        self.history = nn.EmbeddingBag(n_items, embed_dim, mode="mean")
        self.mlp = nn.Sequential(
            nn.Linear(3 * embed_dim + n_dense, hidden), nn.ReLU(),
            nn.Linear(hidden, 1),
        )

    def forward(self, batch):
        ids = batch["ids"]
        z = torch.cat([self.user(ids[:, 0]), self.item(ids[:, 1]),
                       self.history(batch["history"]), batch["dense"]], dim=1)
        return self.mlp(z).squeeze(1)


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        d = cfg["data"]
        lines = make_log(d["n_records"], d["n_users"], d["n_items"], d["history_len"],
                         d["n_dense"], cfg["seed"])
        self.loader = DataLoader(ClickLog(lines), batch_size=d["batch_size"], shuffle=True,
                                 num_workers=d["num_workers"],
                                 generator=torch.Generator().manual_seed(cfg["seed"]))
        m = cfg["model"]
        self.model = CTRModel(d["n_users"], d["n_items"], d["n_dense"], m["embed_dim"], m["hidden"])
        self.opt = torch.optim.Adam(self.model.parameters(), lr=cfg["optim"]["lr"],
                                    weight_decay=cfg["optim"]["weight_decay"])
        self.loss_fn = nn.BCEWithLogitsLoss()
        self.meter = evalkit.Meter()

    def train_step(self, batch):
        loss = self.loss_fn(self.model(batch), batch["label"])
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss

    def fit(self):
        t = self.cfg["trainer"]
        for epoch in range(t["epochs"]):
            for batch in self.loader:
                self.meter.batch(batch)
                loss = self.train_step(batch)
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
        cfg = json.load(f)
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
