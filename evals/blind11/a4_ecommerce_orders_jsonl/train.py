"""Train a return-risk MLP on raw JSON-lines order exports."""
import argparse
import random
import tomllib

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from shop import FEATURE_NAMES, OrderFeaturizer, OrderLinesDataset, collate_orders, generate_order_lines
from shop.currency import CurrencyTable
from shop.synth import rates_csv


def make_mlp(in_dim, hidden, dropout):
    layers, prev = [nn.BatchNorm1d(in_dim)], in_dim
    for width in hidden:
        layers += [nn.Linear(prev, width), nn.ReLU(), nn.Dropout(dropout)]
        prev = width
    layers.append(nn.Linear(prev, 1))
    return nn.Sequential(*layers)


def train_one_epoch(model, loader, optimizer, loss_fn, meter):
    model.train()
    total, batches = 0.0, 0
    for batch in loader:
        meter.batch(batch)
        logits = model(batch.features).squeeze(1)
        loss = loss_fn(logits, batch.returned)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.step(loss)
        total += loss.item()
        batches += 1
        if meter.done():
            break
    return total / max(batches, 1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-c", "--config", default="orders.toml")
    args = parser.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)

    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    lines = generate_order_lines(cfg["data"]["num_orders"], cfg["seed"])
    table = CurrencyTable.from_csv(rates_csv(cfg["seed"]), base=cfg["data"]["base_currency"])
    dataset = OrderLinesDataset(lines, OrderFeaturizer(table, cfg["data"]["item_dropout"]), seed=cfg["seed"])
    loader = DataLoader(dataset, batch_size=cfg["loader"]["batch_size"], shuffle=cfg["loader"]["shuffle"],
                        num_workers=cfg["loader"]["num_workers"], collate_fn=collate_orders,
                        generator=torch.Generator().manual_seed(cfg["seed"]))

    model = make_mlp(len(FEATURE_NAMES), cfg["model"]["hidden"], cfg["model"]["dropout"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["train"]["lr"])
    loss_fn = nn.BCEWithLogitsLoss()
    meter = evalkit.Meter()

    history = []
    for epoch in range(cfg["train"]["epochs"]):
        history.append(train_one_epoch(model, loader, optimizer, loss_fn, meter))
        print(f"epoch {epoch}: loss {history[-1]:.4f}", flush=True)
        if meter.done():
            break
    meter.report(extra={"epoch_losses": history})


if __name__ == "__main__":
    main()
