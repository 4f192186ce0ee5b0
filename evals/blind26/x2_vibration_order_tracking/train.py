"""Fault classification from order spectra of run-up vibration tests."""
import argparse
import json

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from evalkit import Meter
from rotorlab.data import RunUpDataset
from rotorlab.simulate import FAULTS


def build_model(n_bins, n_classes):
    return nn.Sequential(
        nn.Conv1d(1, 16, 7, padding=3), nn.ReLU(), nn.MaxPool1d(2),
        nn.Conv1d(16, 32, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
        nn.Flatten(), nn.Linear(32 * (n_bins // 4), 64), nn.ReLU(), nn.Linear(64, n_classes),
    )


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        tc = cfg["trainer"]
        self.ds = RunUpDataset(cfg, cfg["seed"])
        self.loader = DataLoader(self.ds, batch_size=tc["batch_size"], shuffle=True, num_workers=0,
                                 generator=torch.Generator().manual_seed(cfg["seed"]))
        self.model = build_model(cfg["order_tracking"]["max_order_bins"], len(FAULTS))
        self.opt = torch.optim.Adam(self.model.parameters(), lr=tc["lr"])
        self.criterion = nn.CrossEntropyLoss()
        self.meter = Meter()

    def train_step(self, batch):
        logits = self.model(batch["orders"])
        loss = self.criterion(logits, batch["label"])
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss

    def fit(self):
        tc = self.cfg["trainer"]
        for epoch in range(tc["epochs"]):
            self.ds.epoch = epoch
            for step, batch in enumerate(self.loader):
                self.meter.batch(batch)
                loss = self.train_step(batch)
                self.meter.step(loss)
                if step % tc["log_every"] == 0:
                    print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
                if self.meter.done():
                    return

    def evaluate(self):
        self.model.eval()
        with torch.no_grad():
            batch = next(iter(DataLoader(self.ds, batch_size=64, shuffle=False)))
            acc = (self.model(batch["orders"]).argmax(1) == batch["label"]).float().mean().item()
        return round(acc, 4)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", required=True)
    with open(ap.parse_args().config) as fh:
        cfg = json.load(fh)
    torch.set_num_threads(cfg["threads"])
    torch.manual_seed(cfg["seed"])
    trainer = Trainer(cfg)
    trainer.fit()
    trainer.meter.report({"eval_acc_first64": trainer.evaluate()})


if __name__ == "__main__":
    main()
