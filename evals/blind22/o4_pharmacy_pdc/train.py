"""Readmission risk from medication adherence (PDC per drug class), Lightning-style loop."""
import argparse
import configparser
import datetime as dt
import tempfile
import time
from pathlib import Path

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from claims import write_claims_extract
from dataset import PatientAdherenceDataset
from evalkit import Meter


class AdherenceRiskModule(nn.Module):
    def __init__(self, n_features, hidden, dropout, lr):
        super().__init__()
        self.lr = lr
        self.net = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Dropout(dropout),
                                 nn.Linear(hidden, 1))
        self.loss_fn = nn.BCEWithLogitsLoss()

    def forward(self, x):
        return self.net(x).squeeze(-1)

    def training_step(self, batch, batch_idx):
        return self.loss_fn(self(batch["features"]), batch["label"])

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


class Callback:
    def on_train_batch_end(self, trainer, module, loss, batch, batch_idx):
        pass

    def on_train_end(self, trainer, module):
        pass


class PrintLogger(Callback):
    def __init__(self, every):
        self.every = every
        self.t0 = time.time()

    def on_train_batch_end(self, trainer, module, loss, batch, batch_idx):
        if trainer.global_step % self.every == 0:
            print(f"step {trainer.global_step}  loss {loss.item():.4f}  "
                  f"{time.time() - self.t0:.1f}s", flush=True)


class AdherenceStats(Callback):
    def __init__(self):
        self.adherent_classes = 0
        self.patients = 0

    def on_train_batch_end(self, trainer, module, loss, batch, batch_idx):
        self.adherent_classes += int(batch["adherent_classes"].sum())
        self.patients += len(batch["label"])


class MeterCallback(Callback):
    def __init__(self, meter):
        self.meter = meter

    def on_train_batch_end(self, trainer, module, loss, batch, batch_idx):
        self.meter.step(loss)
        if self.meter.done():
            trainer.should_stop = True


class Trainer:
    def __init__(self, max_epochs, callbacks=(), meter=None):
        self.max_epochs = max_epochs
        self.callbacks = list(callbacks)
        self.meter = meter
        self.global_step = 0
        self.should_stop = False

    def fit(self, module, loader):
        opt = module.configure_optimizers()
        module.train()
        for epoch in range(self.max_epochs):
            for batch_idx, batch in enumerate(loader):
                if self.meter is not None:
                    self.meter.batch(batch)
                loss = module.training_step(batch, batch_idx)
                opt.zero_grad()
                loss.backward()
                opt.step()
                self.global_step += 1
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, module, loss.detach(), batch, batch_idx)
                if self.should_stop:
                    break
            if self.should_stop:
                break
        for cb in self.callbacks:
            cb.on_train_end(self, module)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="pdc.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    d = cfg["data"]
    classes = [c.strip() for c in d["drug_classes"].split(",")]
    start = dt.date.fromisoformat(d["measurement_start"])
    end = dt.date.fromisoformat(d["measurement_end"])
    seed = d.getint("seed")

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    with tempfile.TemporaryDirectory(prefix="claims-") as tmp:
        claims_path = Path(tmp) / "dispensing_2023.csv"
        labels = write_claims_extract(claims_path, d.getint("patients"), classes, start, end, seed)
        dataset = PatientAdherenceDataset(str(claims_path), sorted(labels), labels, classes, start, end)
        g = torch.Generator()
        g.manual_seed(seed)
        loader = DataLoader(dataset, batch_size=cfg["loader"].getint("batch_size"),
                            shuffle=cfg["loader"].getboolean("shuffle"), generator=g,
                            num_workers=cfg["loader"].getint("num_workers"), drop_last=True)
        module = AdherenceRiskModule(4 * len(classes), cfg["model"].getint("hidden"),
                                     cfg["model"].getfloat("dropout"), cfg["trainer"].getfloat("lr"))
        meter = Meter()
        stats = AdherenceStats()
        trainer = Trainer(cfg["trainer"].getint("max_epochs"), meter=meter,
                          callbacks=[MeterCallback(meter), stats,
                                     PrintLogger(cfg["trainer"].getint("log_every_n_steps"))])
        trainer.fit(module, loader)
    meter.report(extra={"patients": stats.patients, "adherent_classes": stats.adherent_classes})


if __name__ == "__main__":
    main()
