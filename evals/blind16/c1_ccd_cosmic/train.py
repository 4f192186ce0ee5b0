"""Train a star/galaxy classifier on calibrated, cosmic-ray-cleaned CCD cutouts."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

import evalkit
from ccdlab import (AsinhStretch, Calibrate, Compose, CosmicRayReject, ExposureDataset, MasterFrames,
                    RandomFlip, SourceCutout, ToTensor, collate_cutouts)


class StampNet(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def build_pipeline(cfg, masters, rng):
    d, t = cfg["data"], cfg["transforms"]
    return Compose([
        Calibrate(masters),
        CosmicRayReject(d["gain"], d["read_noise"], sigclip=t["sigclip"],
                        objlim=t["objlim"], max_iter=t["max_iter"]),
        SourceCutout(t["cutout"], rng),
        RandomFlip(t["flip_p"], rng),
        AsinhStretch(t["stretch"]),
        ToTensor(),
    ])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="ccd.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    rng = np.random.default_rng(seed)
    d = cfg["data"]
    masters = MasterFrames.synthesize(d["frame_size"], d["bias_level"], d["dark_rate"], rng)
    transform = build_pipeline(cfg, masters, rng)
    dataset = ExposureDataset(d, masters, transform, rng)
    lcfg = cfg["loader"]
    loader = DataLoader(dataset, batch_size=lcfg["batch_size"], shuffle=lcfg["shuffle"],
                        num_workers=lcfg["num_workers"], collate_fn=collate_cutouts,
                        generator=torch.Generator().manual_seed(seed))

    model = StampNet()
    tcfg = cfg["train"]
    opt = torch.optim.AdamW(model.parameters(), lr=tcfg["lr"], weight_decay=tcfg["weight_decay"])
    loss_fn = nn.CrossEntropyLoss()
    meter = evalkit.Meter()
    n_cr_total = 0
    step = 0
    for epoch in range(tcfg["epochs"]):
        model.train()
        for stamps, labels, n_cr in loader:
            meter.batch((stamps, labels))
            logits = model(stamps)
            loss = loss_fn(logits, labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            n_cr_total += sum(n_cr)
            step += 1
            if step % tcfg["log_every"] == 0:
                acc = (logits.argmax(1) == labels).float().mean().item()
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} acc {acc:.3f} cr {n_cr_total}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"cosmic_rays_flagged": n_cr_total})


if __name__ == "__main__":
    main()
