"""Train the weather classifier on sky segmentation cues.

    python train.py --config sky.yaml
"""
import argparse
import time

import numpy as np
import torch
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from skyseg import SkyCueNet, WeatherPhotos, build_transforms


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="sky.yaml")
    return ap.parse_args()


def main():
    args = parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    np.random.seed(cfg["seed"])

    data_cfg, loader_cfg, optim_cfg = cfg["data"], cfg["loader"], cfg["optim"]
    dataset = WeatherPhotos(data_cfg["num_images"], data_cfg["height"], data_cfg["width"],
                            data_cfg["classes"], seed=cfg["seed"],
                            transform=build_transforms(cfg["transforms"]))
    loader = DataLoader(dataset, batch_size=loader_cfg["batch_size"], shuffle=loader_cfg["shuffle"],
                        num_workers=loader_cfg["num_workers"], drop_last=loader_cfg["drop_last"],
                        generator=torch.Generator().manual_seed(cfg["seed"]))

    model = SkyCueNet(len(data_cfg["classes"]), data_cfg["width"])
    opt = torch.optim.AdamW(model.parameters(), lr=optim_cfg["lr"], weight_decay=optim_cfg["weight_decay"])
    ce = torch.nn.CrossEntropyLoss()

    meter = Meter()
    correct = seen = 0
    horizon_gap = 0.0
    t0 = time.time()
    for epoch in range(optim_cfg["epochs"]):
        model.train()
        for step, batch in enumerate(loader):
            meter.batch(batch)
            logits, horizon = model(batch["features"])
            loss = ce(logits, batch["label"]) + optim_cfg["horizon_weight"] * \
                torch.nn.functional.mse_loss(horizon, batch["true_horizon"])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)

            correct += int((logits.argmax(1) == batch["label"]).sum())
            seen += int(batch["label"].numel())
            horizon_gap += float((batch["horizon"] - batch["true_horizon"]).abs().mean())
            if step % cfg["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} "
                      f"acc {correct / max(seen, 1):.3f} ({time.time() - t0:.1f}s)")
            if meter.done():
                break
        if meter.done():
            break

    meter.report(extra={"train_acc": correct / max(seen, 1), "cue_horizon_gap": horizon_gap})


if __name__ == "__main__":
    main()
