"""Human activity recognition from fused phone sensors (acc + gyro + barometer)."""
import argparse
import tomllib
from dataclasses import dataclass, fields

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from fusion import StreamAligner
from recordings import ACTIVITIES, make_recordings


@dataclass
class DataConfig:
    recordings: int = 40
    duration_s: float = 60.0
    window: int = 128
    rate_hz: float = 50.0
    margin_s: float = 0.5
    windows_per_epoch: int = 1440


@dataclass
class ModelConfig:
    width: int = 32
    dropout: float = 0.1


@dataclass
class TrainConfig:
    batch_size: int = 32
    epochs: int = 3
    lr: float = 1e-3
    weight_decay: float = 1e-4


@dataclass
class Config:
    name: str
    seed: int
    data: DataConfig
    model: ModelConfig
    train: TrainConfig

    @classmethod
    def from_toml(cls, path):
        with open(path, "rb") as fh:
            raw = tomllib.load(fh)

        def build(kind, section):
            known = {f.name for f in fields(kind)}
            return kind(**{k: v for k, v in raw.get(section, {}).items() if k in known})

        return cls(name=raw["experiment"]["name"], seed=raw["experiment"]["seed"],
                   data=build(DataConfig, "data"), model=build(ModelConfig, "model"),
                   train=build(TrainConfig, "train"))


class HARWindows(Dataset):
    def __init__(self, recordings, cfg: DataConfig, seed):
        self.recordings = recordings
        self.labels = [ACTIVITIES.index(r["activity"]) for r in recordings]
        self.cfg = cfg
        self.align = StreamAligner(cfg.window, cfg.rate_hz, cfg.margin_s)
        self.rng = np.random.default_rng(seed)
        self.span = (cfg.window - 1) / cfg.rate_hz

    def __len__(self):
        return self.cfg.windows_per_epoch

    def __getitem__(self, i):
        k = i % len(self.recordings)
        t_start = self.rng.uniform(1.0, self.cfg.duration_s - 1.0 - self.span)
        rows = self.align(self.recordings[k], t_start)
        x = torch.tensor(rows, dtype=torch.float32).t()
        return x, self.labels[k]


class ConvHAR(nn.Module):
    def __init__(self, in_ch, width, n_classes, dropout):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(in_ch, width, 5, padding=2), nn.BatchNorm1d(width), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(width, 2 * width, 5, padding=2), nn.BatchNorm1d(2 * width), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(2 * width, 2 * width, 3, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Dropout(dropout),
            nn.Linear(2 * width, n_classes),
        )

    def forward(self, x):
        return self.net(x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="imu.toml")
    cfg = Config.from_toml(parser.parse_args().config)

    torch.set_num_threads(1)
    torch.manual_seed(cfg.seed)
    recordings = make_recordings(cfg.data.recordings, cfg.data.duration_s, cfg.seed)
    dataset = HARWindows(recordings, cfg.data, cfg.seed + 100)
    loader = DataLoader(dataset, batch_size=cfg.train.batch_size, shuffle=True,
                        generator=torch.Generator().manual_seed(cfg.seed))

    model = ConvHAR(7, cfg.model.width, len(ACTIVITIES), cfg.model.dropout)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.train.lr, weight_decay=cfg.train.weight_decay)

    meter = Meter()
    per_epoch = []
    done = False
    for epoch in range(1, cfg.train.epochs + 1):
        model.train()
        losses, hits, count = [], 0, 0
        for x, y in loader:
            meter.batch((x, y))
            out = model(x)
            loss = F.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
            hits += (out.argmax(1) == y).sum().item()
            count += len(y)
            meter.step(loss)
            if meter.done():
                done = True
                break
        per_epoch.append({"epoch": epoch, "loss": float(np.mean(losses)), "acc": hits / count})
        print(f"{cfg.name} epoch {epoch}: loss {per_epoch[-1]['loss']:.4f} acc {per_epoch[-1]['acc']:.3f}")
        if done:
            break

    meter.report(extra={"epochs": per_epoch})


if __name__ == "__main__":
    main()
