"""Regress vertical TEC from windows of levelled slant TEC (Lightning-style layout)."""
import argparse
import tomllib

import torch

from evalkit import Meter
from gnss.datamodule import GnssDataModule
from gnss.module import TecRegressor
from gnss.trainer import Trainer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="tec.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    dm = GnssDataModule(cfg, cfg["seed"])
    module = TecRegressor(channels=cfg["model"]["channels"], lr=cfg["trainer"]["lr"])
    meter = Meter()
    tr = cfg["trainer"]
    trainer = Trainer(max_epochs=tr["max_epochs"], max_steps=tr["max_steps"],
                      log_every_n_steps=tr["log_every_n_steps"], meter=meter)
    trainer.fit(module, dm)
    meter.report({"mean_train_loss": trainer.loss_sum / max(trainer.global_step, 1),
                  "global_step": trainer.global_step})


if __name__ == "__main__":
    main()
