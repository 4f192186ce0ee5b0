"""Classify running speed zone from foot-pod accelerometer windows."""
import argparse
import time
import tomllib

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from evalkit import Meter
from gait import FootPodStream, GaitFeatureExtractor, GaitNet


def fit(cfg, meter):
    sensor, dsp, tr = cfg["sensor"], cfg["dsp"], cfg["train"]
    extractor = GaitFeatureExtractor(
        fs=sensor["sample_rate_hz"], smooth_width=dsp["smooth_width"], level_width=dsp["level_width"],
        level_margin=dsp["level_margin"], min_step_gap_s=dsp["min_step_gap_s"],
        variability_window_s=dsp["variability_window_s"], downsample=sensor["downsample"])
    stream = FootPodStream(cfg["stream"]["num_sessions"], cfg["stream"]["windows_per_session"],
                           sensor["sample_rate_hz"], sensor["window_s"], extractor, seed=cfg["seed"])
    loader = DataLoader(stream, batch_size=tr["batch_size"], num_workers=tr["num_workers"])
    gait_dim = 1 + 2 * int(sensor["window_s"] // dsp["variability_window_s"])
    model = GaitNet(gait_dim)
    opt = torch.optim.AdamW(model.parameters(), lr=tr["max_lr"])
    steps_per_epoch = len(stream) // tr["batch_size"]
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=tr["max_lr"],
                                                total_steps=steps_per_epoch * tr["epochs"])
    step_counts = []
    t0 = time.time()
    for epoch in range(tr["epochs"]):
        stream.set_epoch(epoch)
        for i, batch in enumerate(loader):
            meter.batch(batch)
            logits = model(batch["trace"], batch["gait"])
            loss = F.cross_entropy(logits, batch["zone"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            meter.step(loss)
            step_counts.append(int(batch["num_steps"].sum()))
            if (i + 1) % tr["log_interval"] == 0:
                print(f"[{epoch}:{i + 1}] loss={loss.item():.4f} lr={sched.get_last_lr()[0]:.5f} "
                      f"steps/batch={step_counts[-1]} t={time.time() - t0:.1f}s", flush=True)
            if meter.done():
                return step_counts
    return step_counts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="footpod.toml")
    args = parser.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    meter = Meter()
    step_counts = fit(cfg, meter)
    meter.report({"detected_steps_per_batch": step_counts})


if __name__ == "__main__":
    main()
