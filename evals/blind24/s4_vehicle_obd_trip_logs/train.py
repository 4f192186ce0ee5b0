"""Fit an eco-score regressor on raw OBD-II CSV exports."""
import argparse
import configparser
import random

import numpy as np
import torch

import evalkit
from obdlib.datamodule import OBDDataModule
from obdlib.module import EcoScoreRegressor, Trainer


class MeterCallback:
    def __init__(self, meter):
        self.meter = meter
        self.epoch_losses = []

    def on_train_batch_start(self, trainer, batch):
        self.meter.batch(batch)

    def on_train_batch_end(self, trainer, loss):
        self.meter.step(loss)
        self.epoch_losses.append(float(loss.detach()))
        trainer.should_stop = self.meter.done()

    def on_train_epoch_end(self, trainer, epoch):
        print(f"epoch {epoch}: mse {np.mean(self.epoch_losses):.5f}")
        self.epoch_losses = []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ini", default="obd.ini")
    cfg = configparser.ConfigParser()
    cfg.read(ap.parse_args().ini)
    seed = cfg.getint("general", "seed")
    torch.set_num_threads(1)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    dm = OBDDataModule(cfg.getint("data", "n_vehicles"), cfg.getint("data", "rows_per_vehicle"),
                       cfg.getint("data", "window"), cfg.getint("data", "batch_size"), seed)
    module = EcoScoreRegressor(cfg.getint("model", "hidden"), cfg.getfloat("model", "lr"))
    meter = evalkit.Meter()
    Trainer(cfg.getint("trainer", "max_epochs"), callbacks=[MeterCallback(meter)]).fit(module, dm)
    meter.report()


if __name__ == "__main__":
    main()
