"""Forecast glucose 30 minutes ahead from a week of CGM readings.

    python train.py -c cgm.toml
"""
import argparse
import tomllib

import torch
from torch.utils.data import DataLoader

from cgm.model import GlucoseForecaster
from cgm.preprocess import CGMPreprocessor
from cgm.stream import CGMWindowStream
from evalkit import Meter


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="cgm.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    sensor, pre, tr = cfg["sensor"], cfg["preprocess"], cfg["train"]

    preprocessor = CGMPreprocessor(sensor["interval_min"], pre["max_gap_min"], pre["hypo_mgdl"],
                                   pre["hyper_mgdl"], pre["min_episode_min"])
    stream = CGMWindowStream(sensor, preprocessor, tr["windows_per_epoch"], cfg["seed"])
    loader = DataLoader(stream, batch_size=tr["batch_size"], num_workers=tr["num_workers"])

    model = GlucoseForecaster()
    opt = torch.optim.Adam(model.parameters(), lr=tr["lr"])
    meter = Meter()

    step, epoch = 0, 0
    episodes = torch.zeros(2, dtype=torch.long)
    tir_sum = 0.0
    while step < tr["max_steps"] and not meter.done():
        stream.set_epoch(epoch)
        for batch in loader:
            meter.batch(batch)
            pred = model(batch["x"])
            loss = torch.nn.functional.mse_loss(pred, batch["y"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)

            step += 1
            episodes += batch["episodes"].sum(0)
            tir_sum += float(batch["tir"].mean())
            if step % tr["log_every"] == 0:
                print(f"step {step:4d}  loss {loss.item():.4f}  hypo/hyper episodes {episodes.tolist()}")
            if step >= tr["max_steps"] or meter.done():
                break
        epoch += 1

    meter.report(extra={"steps": step, "episodes": episodes.tolist(), "mean_tir": tir_sum / max(step, 1)})


if __name__ == "__main__":
    main()
