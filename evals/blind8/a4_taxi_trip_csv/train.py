"""Trip-duration regression on (synthetic) TLC yellow-taxi records.

usage: python train.py --config taxi.ini
"""
import argparse
import configparser

import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from dataset import TripCSVDataset
from model import make_mlp
from tripdata import make_trip_lines
from zones import make_zone_table


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    cp = configparser.ConfigParser()
    cp.read(args.config)

    seed = cp.getint("general", "seed")
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    zones = make_zone_table(cp.getint("data", "num_zones"), seed)
    lines = make_trip_lines(zones, cp.getint("data", "num_trips"), cp.getfloat("data", "missing_rate"), seed + 1)
    train_set = TripCSVDataset(lines, zones)
    n_features = train_set[0][0].numel()

    loader = DataLoader(train_set, batch_size=cp.getint("loader", "batch_size"),
                        shuffle=cp.getboolean("loader", "shuffle"),
                        num_workers=cp.getint("loader", "num_workers"),
                        generator=torch.Generator().manual_seed(seed + 2))
    model = make_mlp(n_features, cp.getint("model", "hidden"), cp.getint("model", "depth"),
                     cp.getfloat("model", "dropout"))
    optimizer = torch.optim.AdamW(model.parameters(), lr=cp.getfloat("train", "lr"),
                                  weight_decay=cp.getfloat("train", "weight_decay"))
    loss_fn = nn.SmoothL1Loss(beta=0.25)
    log_interval = cp.getint("train", "log_interval")

    meter = evalkit.Meter()
    epoch_mae = []
    step = 0
    stop = False
    for epoch in range(cp.getint("train", "epochs")):
        abs_err, count = 0.0, 0
        for x, y in loader:
            meter.batch((x, y))
            pred = model(x)
            loss = loss_fn(pred, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                abs_err += (pred - y).abs().sum().item()
                count += y.numel()
            step += 1
            if step % log_interval == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} mae {abs_err / count:.4f}", flush=True)
            meter.step(loss)
            if meter.done():
                stop = True
                break
        epoch_mae.append(abs_err / max(count, 1))
        if stop:
            break
    meter.report(extra={"epoch_mae_log_minutes": epoch_mae, "n_features": n_features})


if __name__ == "__main__":
    main()
