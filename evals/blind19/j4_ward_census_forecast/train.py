"""Forecast the next 24 h of per-ward bed occupancy from the last 48 h."""
import argparse
import configparser

import torch
from torch import nn
from torch.utils.data import DataLoader

from evalkit import Meter
from stream import CensusWindowStream


class CensusForecaster(nn.Module):
    def __init__(self, history, n_in, horizon, n_wards, hidden):
        super().__init__()
        self.horizon, self.n_wards = horizon, n_wards
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(history * n_in, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, horizon * n_wards))

    def forward(self, x):
        last = x[:, -1, : self.n_wards].unsqueeze(1)
        return last + self.net(x).view(-1, self.horizon, self.n_wards)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="wards.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    seed = cfg["run"].getint("seed")
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    stream = CensusWindowStream(cfg)
    loader = DataLoader(stream, batch_size=cfg["loader"].getint("batch_size"),
                        num_workers=cfg["loader"].getint("num_workers"))
    n_wards = len(stream.wards)
    model = CensusForecaster(stream.history, n_wards + 4, stream.horizon, n_wards, cfg["optimizer"].getint("hidden"))
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optimizer"].getfloat("lr"))
    meter = Meter()
    mae_sum, n = 0.0, 0
    for epoch in range(cfg["run"].getint("epochs")):
        stream.set_epoch(epoch)
        for step, batch in enumerate(loader):
            meter.batch(batch)
            pred = model(batch["history"])
            loss = nn.functional.smooth_l1_loss(pred, batch["target"], beta=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            mae_sum += float((pred.detach() - batch["target"]).abs().mean())
            n += 1
            if step % 20 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.5f}", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"mean_mae": mae_sum / max(n, 1)})


if __name__ == "__main__":
    main()
