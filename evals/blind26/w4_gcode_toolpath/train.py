import argparse
import tomllib

import torch
from torch.utils.data import DataLoader

from evalkit import Meter
from toolpath.dataset import GCodeDataset
from toolpath.model import CycleTimeRegressor
from toolpath.programs import make_programs


def run(cfg):
    torch.manual_seed(cfg["run"]["seed"])
    torch.set_num_threads(cfg["run"]["threads"])
    p = cfg["programs"]
    programs = make_programs(p["count"], p["min_moves"], p["max_moves"], cfg["run"]["seed"])
    ds = GCodeDataset(programs, cfg["machine"])
    o = cfg["optim"]
    dl = DataLoader(ds, batch_size=o["batch_size"], shuffle=True, num_workers=0,
                    generator=torch.Generator().manual_seed(cfg["run"]["seed"]))
    model = CycleTimeRegressor(channels=cfg["model"]["channels"])
    opt = torch.optim.AdamW(model.parameters(), lr=o["lr"])
    meter = Meter()
    for epoch in range(o["epochs"]):
        running = 0.0
        for k, (feats, n, target) in enumerate(dl):
            meter.batch((feats, n, target))
            pred = model(feats, n)
            loss = torch.nn.functional.smooth_l1_loss(pred, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            running += loss.item()
            if meter.done():
                return meter
        print(f"epoch {epoch}: mean loss {running / (k + 1):.4f}")
    return meter


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--job", default="job.toml")
    args = ap.parse_args()
    with open(args.job, "rb") as fh:
        cfg = tomllib.load(fh)
    run(cfg).report()
