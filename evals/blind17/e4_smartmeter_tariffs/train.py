"""Next-day household consumption from two weeks of smart-meter exports (GRU over daily tariff features)."""
import argparse
import configparser
import dataclasses
import json
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from exports import make_exports
from meterdata import N_FEATURES, MeterWindows, WindowBatchSampler, collate_meter


class DayGRU(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.inp = nn.Linear(N_FEATURES, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x):
        h, _ = self.gru(torch.tanh(self.inp(x)))
        return self.out(h[:, -1]).squeeze(-1)


class Callback:
    def on_batch(self, trainer, batch): pass
    def on_step_end(self, trainer, loss): pass
    def on_train_end(self, trainer): pass


class MeterCallback(Callback):
    def __init__(self):
        self.meter = evalkit.Meter()

    def on_batch(self, trainer, batch):
        self.meter.batch({f.name: getattr(batch, f.name) for f in dataclasses.fields(batch)})

    def on_step_end(self, trainer, loss):
        self.meter.step(loss)
        if self.meter.done():
            trainer.should_stop = True

    def on_train_end(self, trainer):
        self.meter.report({"mae_kwh_log": round(trainer.abs_err / max(trainer.seen, 1), 6),
                           "households": sorted(trainer.households)[:5], "steps": trainer.step})


class PrintCallback(Callback):
    def __init__(self, every):
        self.every = every

    def on_step_end(self, trainer, loss):
        if trainer.step % self.every == 0:
            print(f"step {trainer.step} loss {loss.item():.5f}")


class Trainer:
    def __init__(self, model, optim, callbacks):
        self.model, self.optim, self.callbacks = model, optim, callbacks
        self.step, self.should_stop = 0, False
        self.abs_err, self.seen, self.households = 0.0, 0, set()

    def fit(self, loader, epochs):
        for _ in range(epochs):
            for batch in loader:
                for cb in self.callbacks:
                    cb.on_batch(self, batch)
                pred = self.model(batch.features)
                loss = nn.functional.smooth_l1_loss(pred, batch.target)
                self.optim.zero_grad()
                loss.backward()
                self.optim.step()
                self.step += 1
                self.abs_err += float((pred.detach() - batch.target).abs().sum())
                self.seen += len(batch.household)
                self.households.update(batch.household)
                for cb in self.callbacks:
                    cb.on_step_end(self, loss)
                if self.should_stop:
                    break
            if self.should_stop:
                break
        for cb in self.callbacks:
            cb.on_train_end(self)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ini", required=True)
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.ini)
    seed = cfg.getint("run", "seed")
    torch.set_num_threads(1)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    data = cfg["data"]
    exports = make_exports(data.getint("households"), data.getint("export_days"), seed)
    dataset = MeterWindows(exports, data.getint("window_days"), tuple(json.loads(data["scale_range"])), seed + 1)
    sampler = WindowBatchSampler(dataset, cfg.getint("loader", "batch_size"),
                                 cfg.getint("loader", "batches_per_epoch"), seed + 2)
    loader = DataLoader(dataset, batch_sampler=sampler, collate_fn=collate_meter,
                        num_workers=cfg.getint("loader", "num_workers"))
    model = DayGRU(cfg.getint("model", "hidden"))
    optim = torch.optim.Adam(model.parameters(), lr=cfg.getfloat("optim", "lr"))
    trainer = Trainer(model, optim, [MeterCallback(), PrintCallback(cfg.getint("run", "log_every"))])
    trainer.fit(loader, cfg.getint("run", "epochs"))


if __name__ == "__main__":
    main()
