"""Train the keyword-spotting MLP on frame energies."""
import argparse
import random

import numpy as np
import torch
import yaml
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from data import ClipDataset


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
    # The MLP is too small for intra-op threads to pay off.
    torch.set_num_threads(1)

    d = cfg["data"]
    dataset = ClipDataset(d["n_clips"], d["clip_len"], d["frame_len"], d["hop"], d["n_classes"], seed)
    loader = DataLoader(
        dataset,
        batch_size=d["batch_size"],
        shuffle=d["shuffle"],
        num_workers=d["num_workers"],
        generator=torch.Generator().manual_seed(seed),
    )

    hidden = cfg["model"]["hidden"]
    model = nn.Sequential(
        nn.LayerNorm(dataset.n_frames),
        nn.Linear(dataset.n_frames, hidden), nn.ReLU(),
        nn.Linear(hidden, hidden), nn.ReLU(),
        nn.Linear(hidden, d["n_classes"]),
    )
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])
    loss_fn = nn.CrossEntropyLoss()

    meter = evalkit.Meter()
    for epoch in range(cfg["train"]["epochs"]):
        for feats, labels in loader:
            meter.batch((feats, labels))
            loss = loss_fn(model(feats), labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            if meter.steps % cfg["train"]["log_every"] == 0:
                print(f"epoch {epoch} step {meter.steps} loss {loss.item():.4f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report()


if __name__ == "__main__":
    main()
