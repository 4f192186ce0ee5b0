"""Regress the asking price of flats from portal JSON documents."""
import argparse
import configparser
import datetime
import json
from collections import namedtuple

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from export import make_export
from features import CITY_NAMES, listing_features, price_per_m2_pairs

Batch = namedtuple("Batch", ["dense", "city", "log_price"])


class ListingDocuments(Dataset):
    def __init__(self, lines, reference_date):
        self.lines = lines
        self.reference_date = reference_date
        self.peers = price_per_m2_pairs(lines)

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, idx):
        doc = json.loads(self.lines[idx])
        dense, city, target = listing_features(doc, self.peers[doc["location"]["city"]], self.reference_date)
        return torch.tensor(dense, dtype=torch.float32), city, target


def collate(items):
    dense, city, target = zip(*items)
    return Batch(torch.stack(dense), torch.tensor(city), torch.tensor(target, dtype=torch.float32))


class PriceModel(nn.Module):
    def __init__(self, n_dense, n_cities, city_dim, hidden):
        super().__init__()
        self.city = nn.Embedding(n_cities, city_dim)
        self.mlp = nn.Sequential(nn.Linear(n_dense + city_dim, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.offset = nn.Parameter(torch.tensor(12.5))

    def forward(self, dense, city):
        return self.offset + self.mlp(torch.cat([dense, self.city(city)], dim=1)).squeeze(1)


class Trainer:
    def __init__(self, model, loader, cfg):
        self.model = model
        self.loader = loader
        self.epochs = cfg.getint("optim", "epochs")
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg.getfloat("optim", "lr"),
                                          weight_decay=cfg.getfloat("optim", "weight_decay"))
        self.meter = Meter()
        self.history = []

    def train_epoch(self, epoch):
        self.model.train()
        sq_err, abs_err, n = 0.0, 0.0, 0
        for batch in self.loader:
            self.meter.batch(batch)
            pred = self.model(batch.dense, batch.city)
            loss = nn.functional.mse_loss(pred, batch.log_price)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.meter.step(loss)
            with torch.no_grad():
                err = pred - batch.log_price
                sq_err += float((err ** 2).sum())
                abs_err += float(err.abs().sum())
                n += err.numel()
            if self.meter.done():
                break
        self.history.append({"epoch": epoch, "rmse_log": (sq_err / n) ** 0.5, "mae_log": abs_err / n})
        print(self.history[-1])

    def fit(self):
        for epoch in range(self.epochs):
            self.train_epoch(epoch)
            if self.meter.done():
                break
        self.meter.report(extra={"history": self.history})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="listings.cfg")
    cfg = configparser.ConfigParser()
    cfg.read(ap.parse_args().config)
    seed = cfg.getint("data", "seed")
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    lines = make_export(cfg.getint("data", "num_listings"), seed)
    ref = datetime.date.fromisoformat(cfg.get("data", "reference_date"))
    dataset = ListingDocuments(lines, ref)
    g = torch.Generator()
    g.manual_seed(seed)
    loader = DataLoader(dataset, batch_size=cfg.getint("loader", "batch_size"), shuffle=True,
                        drop_last=True, num_workers=cfg.getint("loader", "workers"),
                        collate_fn=collate, generator=g)
    n_dense = len(dataset[0][0])
    model = PriceModel(n_dense, len(CITY_NAMES), cfg.getint("model", "city_dim"), cfg.getint("model", "hidden"))
    Trainer(model, loader, cfg).fit()


if __name__ == "__main__":
    main()
