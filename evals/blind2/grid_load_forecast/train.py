"""Day-ahead grid load forecasting from one week of history plus calendar covariates."""
import argparse
import tomllib
from dataclasses import dataclass

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from calendar_features import N_FEATURES
from series import LoadWindows, synthetic_load


@dataclass
class DataCfg:
    hours: int
    lookback: int
    horizon: int
    stride: int
    train_fraction: float


@dataclass
class Cfg:
    seed: int
    epochs: int
    data: DataCfg
    batch_size: int
    num_workers: int
    channels: int
    hidden: int
    lr: float
    clip: float

    @staticmethod
    def load(path):
        with open(path, "rb") as f:
            raw = tomllib.load(f)
        return Cfg(seed=raw["run"]["seed"], epochs=raw["run"]["epochs"], data=DataCfg(**raw["data"]),
                   **raw["loader"], **raw["model"], **raw["optim"])


class Forecaster(nn.Module):
    def __init__(self, lookback, horizon, channels, hidden):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv1d(1 + N_FEATURES, channels, 5, stride=2, padding=2), nn.GELU(),
            nn.Conv1d(channels, channels, 5, stride=2, padding=2), nn.GELU())
        enc_len = (lookback + 3) // 4
        self.head = nn.Sequential(nn.Linear(channels * enc_len + horizon * N_FEATURES, hidden), nn.GELU(),
                                  nn.Linear(hidden, horizon))

    def forward(self, past, future_calendar):
        h = self.encoder(past.transpose(1, 2)).flatten(1)
        return self.head(torch.cat([h, future_calendar.flatten(1)], dim=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    cfg = Cfg.load(ap.parse_args().config)
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(1)

    load = synthetic_load(cfg.data.hours, cfg.seed)
    split = int(cfg.data.hours * cfg.data.train_fraction)
    mu, sigma = float(load[:split].mean()), float(load[:split].std())
    train_ds = LoadWindows(load, cfg.data.lookback, cfg.data.horizon, cfg.data.stride, 0, split, mu, sigma)
    loader = DataLoader(train_ds, batch_size=cfg.batch_size, shuffle=True, num_workers=cfg.num_workers,
                        generator=torch.Generator().manual_seed(cfg.seed), drop_last=True)

    model = Forecaster(cfg.data.lookback, cfg.data.horizon, cfg.channels, cfg.hidden)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    meter = evalkit.Meter()

    mae_mw_by_epoch, horizon_mae = [], None
    done = False
    epoch = 0
    while epoch < cfg.epochs and not done:
        abs_err = torch.zeros(cfg.data.horizon, dtype=torch.float64)
        n = 0
        for step, batch in enumerate(loader):
            meter.batch(batch)
            pred = model(batch["past"], batch["future_calendar"])
            loss = nn.functional.mse_loss(pred, batch["target"])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
            opt.step()
            meter.step(loss)
            abs_err += (pred.detach() - batch["target"]).abs().sum(0).double() * sigma
            n += len(pred)
            if step % 25 == 0:
                print(f"epoch {epoch} step {step:4d} mse {loss.item():.4f} mae {abs_err.sum().item() / (n * cfg.data.horizon):.1f} MW")
            done = meter.done()
            if done:
                break
        horizon_mae = (abs_err / max(n, 1)).tolist()
        mae_mw_by_epoch.append(sum(horizon_mae) / len(horizon_mae))
        epoch += 1
    meter.report(extra={"mae_mw_by_epoch": mae_mw_by_epoch, "last_epoch_mae_by_horizon": horizon_mae})


if __name__ == "__main__":
    main()
