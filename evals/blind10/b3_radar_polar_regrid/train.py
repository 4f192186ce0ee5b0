"""Classify radar sweeps as convective or stratiform from regridded rain-rate maps."""
import argparse
import configparser
import random
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from regrid import PolarToCartesian, RadarTransform
from sweeps import SiteShuffleSampler, SweepArchive


def collate(samples):
    images, labels, coverage = zip(*samples)
    return (torch.from_numpy(np.stack(images)), torch.tensor(labels, dtype=torch.long),
            torch.tensor(coverage, dtype=torch.float64))


class Callback:
    def on_step_end(self, trainer, step, loss):
        pass

    def on_train_end(self, trainer):
        pass


class PrintLogger(Callback):
    def __init__(self, every):
        self.every = every
        self.t0 = time.perf_counter()

    def on_step_end(self, trainer, step, loss):
        if step % self.every == 0:
            print(f"[step {step:4d}] loss={loss:.4f} elapsed={time.perf_counter() - self.t0:.1f}s")


class MeterCallback(Callback):
    def __init__(self):
        self.meter = evalkit.Meter()
        self.coverage = []

    def on_step_end(self, trainer, step, loss):
        self.meter.step(trainer.last_loss)
        if self.meter.done():
            trainer.should_stop = True

    def on_train_end(self, trainer):
        self.meter.report(extra={"mean_coverage": round(sum(self.coverage) / len(self.coverage), 12)})


class Trainer:
    def __init__(self, model, optimizer, max_epochs, callbacks):
        self.model, self.optimizer = model, optimizer
        self.max_epochs = max_epochs
        self.callbacks = callbacks
        self.should_stop = False
        self.global_step = 0
        self.last_loss = None

    def fit(self, loader, meter_cb):
        criterion = nn.CrossEntropyLoss()
        for _epoch in range(self.max_epochs):
            for images, labels, coverage in loader:
                meter_cb.meter.batch((images, labels, coverage))
                meter_cb.coverage.extend(coverage.tolist())
                loss = criterion(self.model(images), labels)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.last_loss = loss
                self.global_step += 1
                for cb in self.callbacks:
                    cb.on_step_end(self, self.global_step, loss.item())
                if self.should_stop:
                    break
            if self.should_stop:
                break
        for cb in self.callbacks:
            cb.on_train_end(self)


def build_model():
    return nn.Sequential(
        nn.Conv2d(1, 8, 5, stride=2, padding=2), nn.ReLU(),
        nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveMaxPool2d(1), nn.Flatten(), nn.Linear(16, 2),
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("config", help="INI file")
    args = parser.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)

    seed = cfg.getint("run", "seed")
    torch.set_num_threads(1)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    regridder = PolarToCartesian(cfg.getint("grid", "size"), cfg.getfloat("grid", "resolution_m"),
                                 cfg.getfloat("zr", "a"), cfg.getfloat("zr", "b"))
    archive = SweepArchive(cfg.getint("data", "n_sweeps"), cfg.getint("data", "n_sites"), seed,
                           RadarTransform(regridder, seed + 1))
    loader = DataLoader(archive, batch_size=cfg.getint("loader", "batch_size"),
                        sampler=SiteShuffleSampler(archive.sites, seed), collate_fn=collate,
                        num_workers=cfg.getint("loader", "num_workers"), drop_last=True)
    model = build_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.getfloat("optim", "lr"), momentum=0.9)
    meter_cb = MeterCallback()
    trainer = Trainer(model, optimizer, cfg.getint("run", "max_epochs"),
                      [meter_cb, PrintLogger(cfg.getint("run", "log_every"))])
    trainer.fit(loader, meter_cb)


if __name__ == "__main__":
    main()
