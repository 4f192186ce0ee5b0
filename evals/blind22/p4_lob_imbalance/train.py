"""Mid-price move classifier on limit order book windows (a Lightning-style module and fit loop)."""
import argparse
import configparser

import torch
from torch import nn
from torch.utils.data import DataLoader, RandomSampler

import evalkit
from lob.dataset import OrderBookWindows
from lob.feed import generate_feed


class DeepLOBLite(nn.Module):
    """Temporal conv stack over the window (a light cousin of DeepLOB, no LSTM)."""

    def __init__(self, n_features, hidden):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(n_features, hidden, 5, padding=2), nn.ReLU(),
            nn.Conv1d(hidden, hidden, 5, stride=4, padding=2), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1), nn.Flatten(),
        )
        self.out = nn.Linear(hidden, 3)

    def forward(self, x):
        return self.out(self.net(x.transpose(1, 2)))


class LitLOB:
    def __init__(self, model, lr):
        self.model = model
        self.lr = lr
        self.loss_fn = nn.CrossEntropyLoss()

    def configure_optimizers(self):
        return torch.optim.Adam(self.model.parameters(), lr=self.lr)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return self.loss_fn(self.model(x), y)


class Trainer:
    def __init__(self, max_steps, meter):
        self.max_steps = max_steps
        self.meter = meter
        self.global_step = 0
        self.label_counts = [0, 0, 0]

    def fit(self, module, loader):
        opt = module.configure_optimizers()
        it = iter(loader)
        while self.global_step < self.max_steps:
            try:
                batch = next(it)
            except StopIteration:
                it = iter(loader)
                batch = next(it)
            self.meter.batch(batch)
            loss = module.training_step(batch, self.global_step)
            opt.zero_grad()
            loss.backward()
            opt.step()
            self.meter.step(loss)
            for c in batch[1].tolist():
                self.label_counts[c] += 1
            self.global_step += 1
            if self.meter.done():
                break


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="lob.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    d, f, t = cfg["data"], cfg["features"], cfg["train"]
    seed = d.getint("seed")
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    lines = generate_feed(d.getint("num_events"), d.getint("levels"), d.getfloat("tick"),
                          d.getfloat("start_price"), seed)
    lags = [int(x) for x in f["return_lags"].split(",")]
    ds = OrderBookWindows(lines, d.getint("levels"), f.getint("window"), lags, f.getint("horizon"),
                          f.getfloat("flat_band_bps"))
    sampler = RandomSampler(ds, generator=torch.Generator().manual_seed(seed))
    loader = DataLoader(ds, batch_size=t.getint("batch_size"), sampler=sampler,
                        num_workers=t.getint("num_workers"), drop_last=True)
    module = LitLOB(DeepLOBLite(3 + len(lags), t.getint("hidden")), t.getfloat("lr"))
    meter = evalkit.Meter()
    trainer = Trainer(t.getint("max_steps"), meter)
    trainer.fit(module, loader)
    meter.report(extra={"label_counts": trainer.label_counts})


if __name__ == "__main__":
    main()
