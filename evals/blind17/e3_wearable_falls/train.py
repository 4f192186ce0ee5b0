"""Fall detection on wrist accelerometer windows: a 1-D CNN over the filtered axes plus hand-made features."""
import argparse
import random
import tomllib

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from falldet import FallWindows, simulate_recordings


class FallNet(nn.Module):
    def __init__(self, n_feats, width=16):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(4, width, 7, stride=2, padding=3), nn.ReLU(),
            nn.Conv1d(width, width, 5, stride=2, padding=2), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1),
        )
        self.norm = nn.LayerNorm(n_feats)
        self.head = nn.Sequential(nn.Linear(width + n_feats, 32), nn.ReLU(), nn.Linear(32, 2))

    def forward(self, signal, features):
        z = self.conv(signal).squeeze(-1)
        return self.head(torch.cat([z, self.norm(features)], dim=1))


class Trainer:
    def __init__(self, model, loader, cfg, meter):
        self.model, self.loader, self.cfg, self.meter = model, loader, cfg, meter
        self.optim = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
        self.loss_fn = nn.CrossEntropyLoss(weight=torch.tensor([1.0, cfg["fall_weight"]]))
        self.global_step = 0
        self.history = {"tp": 0, "fp": 0, "fn": 0}

    def training_step(self, batch):
        logits = self.model(batch.signal, batch.features)
        loss = self.loss_fn(logits, batch.label)
        pred = logits.argmax(1)
        self.history["tp"] += int(((pred == 1) & (batch.label == 1)).sum())
        self.history["fp"] += int(((pred == 1) & (batch.label == 0)).sum())
        self.history["fn"] += int(((pred == 0) & (batch.label == 1)).sum())
        return loss

    def fit(self, epochs):
        for epoch in range(epochs):
            self.model.train()
            for batch in self.loader:
                self.meter.batch(batch)
                loss = self.training_step(batch)
                self.optim.zero_grad()
                loss.backward()
                self.optim.step()
                self.meter.step(loss)
                self.global_step += 1
                if self.global_step % self.cfg["log_every"] == 0:
                    print(f"epoch {epoch} step {self.global_step} loss {loss.item():.4f} {self.history}")
                if self.meter.done():
                    return

    def summary(self):
        tp, fp, fn = self.history["tp"], self.history["fp"], self.history["fn"]
        return {"steps": self.global_step, "precision": tp / max(tp + fp, 1), "recall": tp / max(tp + fn, 1)}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("config")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    seed = cfg["seed"]
    torch.set_num_threads(1)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    recordings = simulate_recordings(cfg["data"]["recordings"], seed)
    dataset = FallWindows(recordings, cfg["data"], seed + 1)
    loader = DataLoader(dataset, batch_size=cfg["loader"]["batch_size"], num_workers=cfg["loader"]["num_workers"])
    model = FallNet(n_feats=9)
    meter = evalkit.Meter()
    trainer = Trainer(model, loader, cfg["trainer"], meter)
    trainer.fit(cfg["trainer"]["epochs"])
    meter.report(trainer.summary())


if __name__ == "__main__":
    main()
