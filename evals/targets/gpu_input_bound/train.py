"""Train a small CNN bird-call classifier on the GPU from log-spectrograms computed on the fly."""
import argparse
import random

import numpy as np
import torch
import yaml
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from data import ClipDataset


def build_model(n_bins, width, n_classes):
    return nn.Sequential(
        nn.Conv1d(n_bins, width, kernel_size=5, padding=2), nn.ReLU(),
        nn.Conv1d(width, width, kernel_size=5, padding=2), nn.ReLU(),
        nn.AdaptiveAvgPool1d(1), nn.Flatten(),
        nn.Linear(width, n_classes),
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    d = cfg["data"]
    dataset = ClipDataset(d["n_clips"], d["clip_len"], d["frame_len"], d["hop"], d["n_bins"], d["n_classes"],
                          d["sample_rate"], seed)
    loader = DataLoader(dataset, batch_size=d["batch_size"], shuffle=True, num_workers=d["num_workers"],
                        persistent_workers=d["persistent_workers"], pin_memory=device.type == "cuda",
                        generator=torch.Generator().manual_seed(seed))

    model = build_model(d["n_bins"], cfg["model"]["width"], d["n_classes"]).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])

    meter = evalkit.Meter()
    for epoch in range(cfg["train"]["epochs"]):
        for feats, labels in loader:
            meter.batch((feats, labels))
            # (batch, frames, bins) -> (batch, bins, frames): bins are the conv's channels.
            feats = feats.to(device, non_blocking=True).transpose(1, 2)
            labels = labels.to(device, non_blocking=True)
            loss = nn.functional.cross_entropy(model(feats), labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            if meter.done():
                break
        print(f"epoch {epoch} loss {loss.item():.4f}")
        if meter.done():
            break
    meter.report()


if __name__ == "__main__":
    main()
