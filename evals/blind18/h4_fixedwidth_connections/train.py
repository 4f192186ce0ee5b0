"""Load-factor regression on airline schedule legs with connection-time features."""
import argparse
import configparser
import math
import random
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler

import evalkit
from schedule import AIRPORTS, CARRIERS, WEEK_MIN, parse_record, synth_schedule


@dataclass
class FlightBatch:
    numeric: torch.Tensor
    carrier: torch.Tensor
    target: torch.Tensor


class LegDataset(Dataset):
    """One schedule leg per index; each draw picks an operating day and an arrival delay."""

    def __init__(self, text, min_connect, max_connect, max_feeder_wait, seed):
        self.lines = text.splitlines()
        self.rows = [i for i, line in enumerate(self.lines) if line.startswith("L")]
        self.min_connect, self.max_connect, self.max_feeder_wait = min_connect, max_connect, max_feeder_wait
        self.rng = np.random.default_rng(seed + 9)

    def __len__(self):
        return len(self.rows)

    def _onward(self, airport, arrival, carrier):
        """Departures from `airport` within the connection window after `arrival` (UTC week minutes)."""
        waits, dests, same = [], set(), 0
        for line in self.lines:
            if line[15:18] != airport:
                continue
            leg = parse_record(line)
            if leg is None:
                continue
            for _, dep in leg.departures_utc():
                wait = (dep - arrival) % WEEK_MIN
                if self.min_connect <= wait <= self.max_connect:
                    waits.append(wait)
                    dests.add(leg.dest)
                    same += leg.carrier == carrier
        return waits, dests, same

    def _feeders(self, airport, departure):
        """Arrivals into `airport` that can feed a departure at `departure`."""
        count, seats = 0, 0
        for line in self.lines:
            if line[22:25] != airport:
                continue
            leg = parse_record(line)
            if leg is None:
                continue
            for day in leg.days:
                wait = (departure - leg.arrival_utc(day)) % WEEK_MIN
                if self.min_connect <= wait <= self.max_feeder_wait:
                    count += 1
                    seats += leg.booked
        return count, seats

    def __getitem__(self, idx):
        leg = parse_record(self.lines[self.rows[idx]])
        day = leg.days[int(self.rng.integers(len(leg.days)))]
        delay = int(self.rng.exponential(14.0))
        dep = dict(leg.departures_utc())[day]
        arr = (leg.arrival_utc(day) + delay) % WEEK_MIN
        waits, dests, same = self._onward(leg.dest, arr, leg.carrier)
        n_feed, feed_pax = self._feeders(leg.origin, dep)
        block = (arr - delay - dep) % WEEK_MIN
        angle = 2 * math.pi * (dep % 1440) / 1440
        numeric = [
            math.sin(angle), math.cos(angle), block / 600.0, leg.seats / 300.0,
            (AIRPORTS[leg.dest] - AIRPORTS[leg.origin]) / 600.0, delay / 60.0,
            len(waits) / 20.0, (min(waits) if waits else self.max_connect) / self.max_connect,
            (sum(waits) / len(waits) if waits else 0.0) / self.max_connect, len(dests) / 10.0, same / 10.0,
            n_feed / 20.0, feed_pax / 5000.0,
        ] + [1.0 if d == day else 0.0 for d in range(1, 8)]
        return {"numeric": numeric, "carrier": CARRIERS.index(leg.carrier), "target": leg.booked / leg.seats}


def collate(samples):
    return FlightBatch(
        numeric=torch.tensor([s["numeric"] for s in samples], dtype=torch.float32),
        carrier=torch.tensor([s["carrier"] for s in samples], dtype=torch.int64),
        target=torch.tensor([s["target"] for s in samples], dtype=torch.float32),
    )


class LoadFactorModel(nn.Module):
    def __init__(self, n_numeric, n_carriers):
        super().__init__()
        self.emb = nn.Embedding(n_carriers, 4)
        self.net = nn.Sequential(nn.Linear(n_numeric + 4, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, batch):
        return self.net(torch.cat([batch.numeric, self.emb(batch.carrier)], 1)).squeeze(1)


class Callback:
    def on_batch_start(self, trainer, batch):
        pass

    def on_batch_end(self, trainer, batch, loss):
        pass

    def on_fit_end(self, trainer):
        pass


class MeterCallback(Callback):
    def __init__(self):
        self.meter = evalkit.Meter()

    def on_batch_start(self, trainer, batch):
        self.meter.batch(vars(batch))

    def on_batch_end(self, trainer, batch, loss):
        self.meter.step(loss)
        if self.meter.done():
            trainer.should_stop = True

    def on_fit_end(self, trainer):
        self.meter.report({"mae_log": trainer.mae_log})


class MAELogger(Callback):
    def __init__(self, every):
        self.every, self.acc, self.n = every, 0.0, 0

    def on_batch_end(self, trainer, batch, loss):
        self.acc += float(trainer.last_mae)
        self.n += 1
        if self.n == self.every:
            trainer.mae_log.append(round(self.acc / self.n, 6))
            self.acc, self.n = 0.0, 0


class Trainer:
    def __init__(self, model, opt, callbacks):
        self.model, self.opt, self.callbacks = model, opt, callbacks
        self.should_stop = False
        self.mae_log = []
        self.last_mae = 0.0

    def fit(self, loader, epochs):
        for _ in range(epochs):
            for batch in loader:
                for cb in self.callbacks:
                    cb.on_batch_start(self, batch)
                pred = self.model(batch)
                loss = nn.functional.mse_loss(pred, batch.target)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
                self.last_mae = (pred.detach() - batch.target).abs().mean()
                for cb in self.callbacks:
                    cb.on_batch_end(self, batch, loss)
                if self.should_stop:
                    break
            if self.should_stop:
                break
        for cb in self.callbacks:
            cb.on_fit_end(self)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    seed = cfg.getint("general", "seed")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    sc = cfg["schedule"]
    text = synth_schedule(sc.getint("num_legs"), seed)
    ds = LegDataset(text, sc.getint("min_connect"), sc.getint("max_connect"), sc.getint("max_feeder_wait"), seed)
    sampler = BatchSampler(RandomSampler(ds, generator=torch.Generator().manual_seed(seed)),
                           batch_size=cfg.getint("loader", "batch_size"),
                           drop_last=cfg.getboolean("loader", "drop_last"))
    loader = DataLoader(ds, batch_sampler=sampler, collate_fn=collate,
                        num_workers=cfg.getint("loader", "num_workers"))
    model = LoadFactorModel(20, len(CARRIERS))
    opt = torch.optim.Adam(model.parameters(), lr=cfg.getfloat("optim", "lr"))
    trainer = Trainer(model, opt, [MeterCallback(), MAELogger(10)])
    trainer.fit(loader, cfg.getint("optim", "epochs"))


if __name__ == "__main__":
    main()
