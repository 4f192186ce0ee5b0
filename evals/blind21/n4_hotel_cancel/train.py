"""Cancellation model for hotel bookings (tabular MLP with categorical embeddings)."""
import argparse
import configparser
import random

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, RandomSampler

from evalkit import Meter
from hotel.dataset import HotelBookingDataset
from hotel.synthetic import export_csv, load_bookings

CARDINALITIES = [3, 2, 7, 7, 7, 12]  # deposit, hotel, market, arrival weekday, booked weekday, month


class CancellationNet(nn.Module):
    def __init__(self, n_numeric, embed_dim, hidden):
        super().__init__()
        self.embeds = nn.ModuleList(nn.Embedding(c, embed_dim) for c in CARDINALITIES)
        self.mlp = nn.Sequential(nn.Linear(n_numeric + embed_dim * len(CARDINALITIES), hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, numeric, categorical):
        embs = [emb(categorical[:, j]) for j, emb in enumerate(self.embeds)]
        return self.mlp(torch.cat([numeric, *embs], dim=1)).squeeze(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ini", required=True)
    args = parser.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.ini)
    seed = cfg.getint("data", "seed")
    torch.set_num_threads(1)
    torch.manual_seed(seed)

    rows = load_bookings(export_csv(cfg.getint("data", "n_bookings"), cfg.getint("data", "n_customers"), seed))
    train_idx = [i for i, r in enumerate(rows) if r["arrival_date_year"] != "2017"]
    random.Random(seed).shuffle(train_idx)
    train_idx = train_idx[: cfg.getint("data", "max_train_samples")]
    ds = HotelBookingDataset(rows, train_idx)
    sampler = RandomSampler(ds, generator=torch.Generator().manual_seed(seed))
    loader = DataLoader(ds, batch_size=cfg.getint("loader", "batch_size"), sampler=sampler,
                        num_workers=cfg.getint("loader", "num_workers"))

    model = CancellationNet(16, cfg.getint("model", "embed_dim"), cfg.getint("model", "hidden"))
    opt = torch.optim.Adam(model.parameters(), lr=cfg.getfloat("train", "lr"))
    loss_fn = nn.BCEWithLogitsLoss()
    meter = Meter()
    step = 0
    tp = fp = fn = 0
    for epoch in range(cfg.getint("train", "epochs")):
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["numeric"], batch["categorical"])
            loss = loss_fn(logits, batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            pred = (logits.detach() > 0).float()
            tp += int((pred * batch["label"]).sum())
            fp += int((pred * (1 - batch["label"])).sum())
            fn += int(((1 - pred) * batch["label"]).sum())
            step += 1
            if step % cfg.getint("train", "print_every") == 0:
                print(f"epoch {epoch} step {step}: bce {loss.item():.4f}", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    f1 = 2 * tp / max(2 * tp + fp + fn, 1)
    meter.report(extra={"train_f1": f1})


if __name__ == "__main__":
    main()
