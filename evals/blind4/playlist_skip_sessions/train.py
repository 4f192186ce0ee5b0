import argparse
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

from lite import DataModule, Trainer
from sessions import Catalog, SkipDataset, simulate_sessions


class SkipPredictor(nn.Module):
    def __init__(self, n_tracks, n_artists, dim, lr):
        super().__init__()
        self.item = nn.Embedding(n_tracks, dim, padding_idx=0)
        self.artist = nn.Embedding(n_artists, dim, padding_idx=0)
        self.gap = nn.Embedding(16, dim)
        self.rep = nn.Embedding(8, dim)
        self.mlp = nn.Sequential(nn.Linear(3 * dim + 2, 64), nn.ReLU(), nn.Linear(64, 1))
        self.lr = lr
        self._correct = self._seen = 0

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)

    def forward(self, batch):
        h, c = batch["history"], batch["candidate"]
        tok = self.item(h["items"]) + self.artist(h["artists"]) + self.gap(h["gaps"]) + self.rep(h["repeats"])
        m = h["mask"].unsqueeze(-1)
        user = (tok * m).sum(1) / m.sum(1).clamp(min=1)
        hpop = (h["pop"] * h["mask"]).sum(1, keepdim=True) / h["mask"].sum(1, keepdim=True).clamp(min=1)
        cand = self.item(c["item"]) + self.artist(c["artist"])
        x = torch.cat([user, cand, user * cand, hpop, c["pop"].unsqueeze(1)], dim=1)
        return self.mlp(x).squeeze(1)

    def training_step(self, batch, batch_idx):
        logits = self(batch)
        loss = F.binary_cross_entropy_with_logits(logits, batch["label"])
        self._correct += int(((logits > 0).float() == batch["label"]).sum())
        self._seen += len(logits)
        return loss

    def on_train_epoch_end(self):
        self.trainer.log("train_acc", round(self._correct / max(self._seen, 1), 5))
        self._correct = self._seen = 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="conf/skip.yaml")
    cfg = yaml.safe_load(open(ap.parse_args().config))
    random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    catalog = Catalog(cfg["catalog"]["n_tracks"], cfg["catalog"]["n_artists"], cfg["seed"])
    sessions = simulate_sessions(catalog, cfg["sessions"], cfg["seed"] + 1)
    ds = SkipDataset(catalog, sessions, cfg["sessions"], cfg["seed"] + 2)
    tc = cfg["trainer"]
    dm = DataModule(ds, tc["batch_size"], tc["num_workers"], cfg["seed"])
    model = SkipPredictor(catalog.n_tracks, catalog.n_artists, cfg["model"]["dim"], tc["lr"])
    Trainer(tc["max_epochs"]).fit(model, dm)


if __name__ == "__main__":
    main()
