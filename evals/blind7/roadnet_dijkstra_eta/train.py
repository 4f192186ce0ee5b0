"""Predict delivery trip durations from route features on a synthetic street grid."""
import argparse
import tomllib

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from features import Router, route_features
from roadnet import make_city, make_trips


class TripDataset(Dataset):
    def __init__(self, city, trips):
        self.city = city
        self.trips = trips
        self.router = Router(city.adj)

    def __len__(self):
        return len(self.trips)

    def __getitem__(self, idx):
        trip = self.trips[idx]
        seconds, path = self.router.route(trip["origin"], trip["dest"])
        x = route_features(self.city, path, seconds, trip["hour"], trip["weekend"])
        return (torch.tensor(x, dtype=torch.float32),
                trip["depot"],
                torch.tensor(trip["log_minutes"], dtype=torch.float32))


class ETANet(nn.Module):
    def __init__(self, n_features, n_depots, hidden):
        super().__init__()
        self.depot = nn.Embedding(n_depots, 4)
        self.mlp = nn.Sequential(
            nn.Linear(n_features + 4, hidden), nn.SiLU(),
            nn.Linear(hidden, hidden), nn.SiLU(),
            nn.Linear(hidden, 1),
        )

    def forward(self, x, depot):
        return self.mlp(torch.cat([x, self.depot(depot)], dim=1)).squeeze(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="eta.toml")
    with open(ap.parse_args().config, "rb") as fh:
        cfg = tomllib.load(fh)
    tcfg = cfg["train"]

    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    city, rng = make_city(cfg["city"], cfg["seed"])
    depots, trips = make_trips(city, cfg["trips"]["count"], cfg["trips"]["depots"], rng)
    print(f"{len(city.coords)} intersections, {sum(map(len, city.adj.values())) // 2} segments, "
          f"{len(trips)} trips from {len(depots)} depots")

    loader = DataLoader(TripDataset(city, trips), batch_size=tcfg["batch_size"], shuffle=True,
                        generator=torch.Generator().manual_seed(cfg["seed"]))
    model = ETANet(9, len(depots), tcfg["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=tcfg["lr"])
    meter = Meter()

    mae_minutes = []
    step = 0
    for epoch in range(tcfg["epochs"]):
        for x, depot, y in loader:
            meter.batch((x, depot, y))
            pred = model(x, depot)
            loss = nn.functional.mse_loss(pred, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            with torch.no_grad():
                mae_minutes.append(float((pred.exp() - y.exp()).abs().mean()))
            if step % tcfg["log_every"] == 0:
                print(f"epoch {epoch} step {step} mse {loss.item():.4f} mae {mae_minutes[-1]:.2f} min")
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break

    meter.report(extra={"steps": step, "mae_minutes_last10": sum(mae_minutes[-10:]) / len(mae_minutes[-10:])})


if __name__ == "__main__":
    main()
