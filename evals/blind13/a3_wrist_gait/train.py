"""Gait type from wrist accelerometry: 1-D CNN on the smoothed magnitude + stride features.

    python train.py gait.toml
"""
import random
import sys
import tomllib

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from gaitlib import (ClassBalancedBatchSampler, GaitWindows, LoggingCallback, Trainer, collate_gait,
                     simulate_cohort)
from gaitlib.features import FEATURE_NAMES


class GaitNet(nn.Module):
    def __init__(self, n_features, n_classes):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(1, 16, 7, stride=2, padding=3), nn.ReLU(),
            nn.Conv1d(16, 32, 5, stride=2, padding=2), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1), nn.Flatten())
        self.feat = nn.Sequential(nn.LayerNorm(n_features), nn.Linear(n_features, 32), nn.ReLU())
        self.head = nn.Linear(64, n_classes)

    def forward(self, signal, features):
        return self.head(torch.cat([self.conv(signal - 1.0), self.feat(features)], dim=1))


def main():
    with open(sys.argv[1] if len(sys.argv) > 1 else "gait.toml", "rb") as fh:
        cfg = tomllib.load(fh)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    dev, d, lc = cfg["device"], cfg["data"], cfg["loader"]
    recordings, labels, _ = simulate_cohort(d["subjects"], d["recordings_per_subject"],
                                            dev["sample_rate_hz"], dev["lsb_per_g"], dev["recording_s"], seed)
    dataset = GaitWindows(recordings, labels, d["window"], d["hop"], d["smooth_taps"], d["refractory_s"],
                          d["gain_jitter"], seed)
    sampler = ClassBalancedBatchSampler(dataset.window_labels, lc["batch_size"], lc["batches_per_epoch"], seed)
    loader = DataLoader(dataset, batch_sampler=sampler, collate_fn=collate_gait, num_workers=lc["num_workers"])

    model = GaitNet(len(FEATURE_NAMES), 4)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
    meter = evalkit.Meter()
    trainer = Trainer(model, opt, loader, meter, callbacks=[LoggingCallback(cfg["trainer"]["log_every"])])
    trainer.fit(cfg["trainer"]["max_epochs"])
    meter.report(extra={"epoch_losses": trainer.epoch_losses, "steps": trainer.global_step})


if __name__ == "__main__":
    main()
