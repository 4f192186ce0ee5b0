"""Storm-surge forecaster trained on de-tided tide-gauge windows."""
import argparse
import random
import tomllib
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from gauge import SurgeWindows

SurgeBatch = namedtuple("SurgeBatch", ["series", "daily_max", "peaks", "target", "station"])


class SurgeNet(nn.Module):
    def __init__(self, window, hidden):
        super().__init__()
        self.conv = nn.Conv1d(1, 8, kernel_size=24, stride=12)
        n_conv = 8 * ((window - 24) // 12 + 1)
        self.mlp = nn.Sequential(nn.Linear(n_conv + window // 24 + 6, hidden), nn.ReLU(), nn.Linear(hidden, 2))

    def forward(self, b):
        z = F.relu(self.conv(b.series.unsqueeze(1))).flatten(1)
        return self.mlp(torch.cat([z, b.daily_max, b.peaks.flatten(1)], dim=1))


class Trainer:
    def __init__(self, model, lr, epochs, log_every, meter):
        self.model, self.epochs, self.log_every, self.meter = model, epochs, log_every, meter
        self.opt = torch.optim.AdamW(model.parameters(), lr=lr)
        self.history = []

    def training_step(self, batch):
        out = self.model(batch)
        reg = F.smooth_l1_loss(out[:, 0], batch.target[:, 0])
        cls = F.binary_cross_entropy_with_logits(out[:, 1], batch.target[:, 1])
        return reg + 0.5 * cls

    def fit(self, loader):
        step = 0
        for epoch in range(self.epochs):
            for batch in loader:
                self.meter.batch(batch)
                loss = self.training_step(batch)
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                self.opt.step()
                self.meter.step(loss)
                step += 1
                if step % self.log_every == 0:
                    self.history.append(round(loss.item(), 6))
                if self.meter.done():
                    return step
        return step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    d = cfg["data"]
    ds = SurgeWindows(d["stations"], d["year"], d["window_hours"], d["horizon_hours"], d["windows_per_epoch"],
                      d["spike_jump"], seed, SurgeBatch)
    loader = DataLoader(ds, batch_size=cfg["loader"]["batch_size"], num_workers=cfg["loader"]["num_workers"])
    model = SurgeNet(d["window_hours"], cfg["model"]["hidden"])
    meter = evalkit.Meter()
    trainer = Trainer(model, cfg["model"]["lr"], cfg["trainer"]["epochs"], cfg["trainer"]["log_every"], meter)
    steps = trainer.fit(loader)
    meter.report({"steps": steps, "loss_log": trainer.history})


if __name__ == "__main__":
    main()
