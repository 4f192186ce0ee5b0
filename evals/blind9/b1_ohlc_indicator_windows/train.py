"""Direction classifier on OHLC windows with EMA / MACD / RSI / ATR features.

    python train.py --config config.yaml
"""
import argparse
import math
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, Dataset

import indicators as ta
from evalkit import Meter


def simulate_ohlc(n_tickers, n_days, seed):
    """Regime-switching GBM closes with intraday ranges and volume (one array per ticker)."""
    rng = np.random.default_rng(seed)
    series = []
    for _ in range(n_tickers):
        vol = rng.uniform(0.008, 0.03)
        drift = rng.normal(0.0002, 0.0006)
        regime = rng.random(n_days) < 0.05
        sigma = np.where(np.cumsum(regime) % 2 == 1, vol * 1.8, vol)
        # weak momentum so that trend features carry some signal
        shocks = rng.normal(0.0, 1.0, n_days) * sigma
        rets = np.empty(n_days)
        rets[0] = shocks[0]
        for t in range(1, n_days):
            rets[t] = drift + 0.08 * rets[t - 1] + shocks[t]
        close = 50.0 * rng.uniform(0.5, 4.0) * np.exp(np.cumsum(rets))
        gap = rng.normal(0.0, 0.3, n_days) * sigma
        open_ = np.concatenate([[close[0]], close[:-1]]) * np.exp(gap)
        hi = np.maximum(open_, close) * np.exp(np.abs(rng.normal(0.0, 0.5, n_days)) * sigma)
        lo = np.minimum(open_, close) * np.exp(-np.abs(rng.normal(0.0, 0.5, n_days)) * sigma)
        volume = rng.lognormal(13.0, 0.4, n_days) * (1.0 + 20.0 * np.abs(rets))
        series.append(np.stack([open_, hi, lo, close, volume], axis=1).round(4))
    return series


class IndicatorWindows(Dataset):
    """(ticker, day) samples: a window of indicator features ending at `day`, label = 5-day direction."""

    n_features = 9

    def __init__(self, series, cfg_data, cfg_ind):
        self.series = series
        self.window = cfg_data["window"]
        self.horizon = cfg_data["horizon"]
        self.band = cfg_data["flat_band"]
        self.ind = cfg_ind
        start = max(cfg_data["min_history"], self.window)
        self.index = [(k, t) for k, s in enumerate(series) for t in range(start, len(s) - self.horizon)]

    def __len__(self):
        return len(self.index)

    def _indicators(self, bars):
        opens, highs, lows, closes, volumes = (list(col) for col in zip(*bars))
        line, signal = ta.macd(closes, self.ind["ema_fast"], self.ind["ema_slow"], self.ind["ema_signal"])
        return {
            "close": closes,
            "high": highs,
            "low": lows,
            "volume": volumes,
            "ema_fast": ta.ema(closes, self.ind["ema_fast"]),
            "ema_slow": ta.ema(closes, self.ind["ema_slow"]),
            "macd": line,
            "signal": signal,
            "rsi": ta.wilder_rsi(closes, self.ind["rsi_period"]),
            "atr": ta.wilder_atr(highs, lows, closes, self.ind["atr_period"]),
            "vol_ema": ta.ema(volumes, 20),
        }

    def _window_features(self, ind, t):
        rows = []
        for i in range(t - self.window + 1, t + 1):
            c = ind["close"][i]
            rows.append([
                math.log(c / ind["close"][i - 1]),
                (c - ind["ema_fast"][i]) / c,
                (c - ind["ema_slow"][i]) / c,
                ind["macd"][i] / c,
                (ind["macd"][i] - ind["signal"][i]) / c,
                ind["rsi"][i] / 100.0 - 0.5,
                ind["atr"][i] / c,
                (ind["high"][i] - ind["low"][i]) / c,
                math.log(ind["volume"][i] / ind["vol_ema"][i]),
            ])
        return rows

    def __getitem__(self, idx):
        k, t = self.index[idx]
        bars = self.series[k]
        # indicators are recursive: run them over the whole history up to t (no look-ahead)
        ind = self._indicators(bars[: t + 1].tolist())
        feats = self._window_features(ind, t)
        fwd = bars[t + self.horizon, 3] / bars[t, 3] - 1.0
        label = 0 if fwd < -self.band else (2 if fwd > self.band else 1)
        return {"x": torch.tensor(feats, dtype=torch.float32), "y": label, "ticker": k}


class WindowCNN(nn.Module):
    def __init__(self, n_features, channels, hidden, dropout, n_classes=3):
        super().__init__()
        self.conv1 = nn.Conv1d(n_features, channels, 5, padding=2)
        self.conv2 = nn.Conv1d(channels, channels, 5, padding=2, dilation=1)
        self.head = nn.Sequential(nn.Linear(2 * channels, hidden), nn.ReLU(), nn.Dropout(dropout),
                                  nn.Linear(hidden, n_classes))

    def forward(self, x):  # x: (B, T, F)
        h = F.relu(self.conv1(x.transpose(1, 2)))
        h = F.relu(self.conv2(h))
        pooled = torch.cat([h.mean(-1), h[..., -1]], dim=1)
        return self.head(pooled)


class Trainer:
    def __init__(self, model, cfg, meter):
        self.model = model
        self.cfg = cfg
        self.meter = meter
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                                           weight_decay=cfg["optim"]["weight_decay"])
        self.global_step = 0
        self.history = []

    def training_step(self, batch):
        logits = self.model(batch["x"])
        loss = F.cross_entropy(logits, batch["y"])
        acc = (logits.argmax(1) == batch["y"]).float().mean()
        return loss, acc

    def fit(self, loader):
        tcfg = self.cfg["trainer"]
        self.model.train()
        running_loss, running_acc = 0.0, 0.0
        for epoch in range(tcfg["max_epochs"]):
            for batch in loader:
                self.meter.batch(batch)
                loss, acc = self.training_step(batch)
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                self.optimizer.step()
                self.meter.step(loss)
                self.global_step += 1
                running_loss += loss.item()
                running_acc += acc.item()
                if self.global_step % tcfg["log_every"] == 0:
                    n = tcfg["log_every"]
                    self.history.append(
                        {"step": self.global_step, "loss": round(running_loss / n, 5), "acc": round(running_acc / n, 4)})
                    print(f"epoch {epoch} step {self.global_step} loss {running_loss / n:.4f} acc {running_acc / n:.3f}")
                    running_loss, running_acc = 0.0, 0.0
                if self.global_step >= tcfg["max_steps"] or self.meter.done():
                    return


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.yaml")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    series = simulate_ohlc(cfg["data"]["n_tickers"], cfg["data"]["n_days"], seed)
    dataset = IndicatorWindows(series, cfg["data"], cfg["indicators"])
    lcfg = cfg["loader"]
    loader = DataLoader(dataset, batch_size=lcfg["batch_size"], shuffle=lcfg["shuffle"],
                        num_workers=lcfg["num_workers"], drop_last=lcfg["drop_last"],
                        generator=torch.Generator().manual_seed(seed))
    mcfg = cfg["model"]
    model = WindowCNN(IndicatorWindows.n_features, mcfg["channels"], mcfg["hidden"], mcfg["dropout"])
    meter = Meter()
    trainer = Trainer(model, cfg, meter)
    trainer.fit(loader)
    meter.report(extra={"history": trainer.history, "n_samples": len(dataset)})


if __name__ == "__main__":
    main()
