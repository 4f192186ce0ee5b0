import argparse
import time
import tomllib

import torch
from torch import nn
from torch.utils.data import DataLoader

from buoy import HeaveWindowStream, synthesize_fleet
from evalkit import Meter


def make_mlp(in_dim, hidden):
    layers, prev = [], in_dim
    for h in hidden:
        layers += [nn.Linear(prev, h), nn.SiLU()]
        prev = h
    layers.append(nn.Linear(prev, 1))
    return nn.Sequential(nn.BatchNorm1d(in_dim), *layers)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("-c", "--config", required=True, help="TOML experiment file")
    return p.parse_args()


def main():
    args = parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.set_num_threads(1)
    seed = cfg["experiment"]["seed"]
    torch.manual_seed(seed)

    rc, wc = cfg["record"], cfg["window"]
    t_build = time.perf_counter()
    fleet = synthesize_fleet(rc["n_buoys"], rc["hours"], rc["sample_rate_hz"], rc["n_components"], seed)
    print(f"synthesised {len(fleet)} records in {time.perf_counter() - t_build:.1f}s", flush=True)
    stream = HeaveWindowStream(fleet, wc["length"], wc["block"], wc["windows_per_epoch"], seed)
    loader = DataLoader(stream, batch_size=cfg["loader"]["batch_size"], num_workers=cfg["loader"]["num_workers"])

    model = make_mlp(6 + wc["length"] // wc["block"], cfg["model"]["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg["optim"]["lr"],
                                                total_steps=cfg["optim"]["epochs"] * len(loader))
    meter = Meter()
    step, running = 0, 0.0
    for epoch in range(cfg["optim"]["epochs"]):
        stream.set_epoch(epoch)
        for x, y in loader:
            meter.batch((x, y))
            pred = model(x).squeeze(-1)
            loss = nn.functional.smooth_l1_loss(pred, y, beta=0.1)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            meter.step(loss)
            running += loss.item()
            step += 1
            if step % cfg["optim"]["log_interval"] == 0:
                print(f"[{epoch}:{step}] smooth-l1 {running / cfg['optim']['log_interval']:.4f}", flush=True)
                running = 0.0
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"final_lr": sched.get_last_lr()[0]})


if __name__ == "__main__":
    main()
