"""Predict late departures (>= 15 min) from schedule features and delay carried by the aircraft."""
import argparse
import configparser
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, RandomSampler

from evalkit import Meter
from ops.legs import FlightLegDataset
from ops.schedule import generate_ops_csv


class DelayModel(nn.Module):
    def __init__(self, num_airports, num_numeric=8, emb=16, hidden=256):
        super().__init__()
        self.airport = nn.Embedding(num_airports, emb)
        self.mlp = nn.Sequential(nn.Linear(num_numeric + 2 * emb, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 2))

    def forward(self, numeric, origin, dest):
        return self.mlp(torch.cat([numeric, self.airport(origin), self.airport(dest)], dim=1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="flights.ini")
    args = parser.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    seed = cfg.getint("general", "seed")
    sch, feat, tr = cfg["schedule"], cfg["features"], cfg["training"]

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    csv_text, airports = generate_ops_csv(sch.getint("num_tails"), sch.getint("days"),
                                          sch.getint("legs_per_day"), sch.getint("airports"), seed)
    dataset = FlightLegDataset(csv_text, airports, feat.getint("late_threshold_min"),
                               feat.getfloat("minutes_scale"))
    sampler = RandomSampler(dataset, generator=torch.Generator().manual_seed(seed))
    loader = DataLoader(dataset, batch_size=tr.getint("batch_size"), sampler=sampler,
                        num_workers=tr.getint("num_workers"), drop_last=True)

    model = DelayModel(len(airports))
    opt = torch.optim.Adam(model.parameters(), lr=tr.getfloat("lr"))
    meter = Meter()
    late_rate = []
    t0 = time.time()
    for epoch in range(tr.getint("epochs")):
        for step, batch in enumerate(loader, 1):
            meter.batch(batch)
            logits = model(batch["numeric"], batch["origin"], batch["dest"])
            loss = F.cross_entropy(logits, batch["late"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            late_rate.append(float(batch["late"].float().mean()))
            if step % tr.getint("print_every") == 0:
                print(f"epoch {epoch} step {step}/{len(loader)} loss {loss.item():.4f} "
                      f"late {late_rate[-1]:.3f} {time.time() - t0:.1f}s", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"late_rate": late_rate})


if __name__ == "__main__":
    main()
