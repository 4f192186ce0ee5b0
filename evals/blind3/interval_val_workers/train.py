import argparse

import torch
import yaml
from torch import nn

import evalkit
from datamodule import PatternDataModule
from trainer import Trainer


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True)
    with open(p.parse_args().config) as fh:
        cfg = yaml.safe_load(fh)
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])

    dm = PatternDataModule(cfg["data"], cfg["loader"], cfg["seed"])
    dm.setup()
    d = cfg["data"]["image_size"] ** 2
    m = cfg["model"]
    model = nn.Sequential(nn.Linear(d, m["hidden"]), nn.ReLU(), nn.Dropout(m["dropout"]),
                          nn.Linear(m["hidden"], m["hidden"]), nn.ReLU(), nn.Dropout(m["dropout"]),
                          nn.Linear(m["hidden"], cfg["data"]["n_classes"]))
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["trainer"]["lr"])
    meter = evalkit.Meter()
    trainer = Trainer(cfg["trainer"]["max_epochs"], cfg["trainer"]["val_check_interval"], meter)
    trainer.fit(model, optimizer, dm, torch.Generator().manual_seed(cfg["seed"]))
    meter.report(extra={"val": trainer.val_history})


if __name__ == "__main__":
    main()
