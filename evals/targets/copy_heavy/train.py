"""Train a small CNN on tiny images."""
import argparse
import json
import random

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from data import ImageArray, make_images


def build_model(width, n_classes):
    return nn.Sequential(
        nn.Conv2d(3, width, 3, stride=2, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(width, 2 * width, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.LazyLinear(n_classes),
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    # Small model: intra-op threads cost more in sync than they save.
    torch.set_num_threads(1)

    d = cfg["data"]
    images, labels = make_images(d["n_images"], d["image_size"], d["n_classes"], seed)
    loader = DataLoader(ImageArray(images, labels, d["mean"], d["std"]), batch_size=d["batch_size"],
                        shuffle=True, num_workers=d["num_workers"],
                        generator=torch.Generator().manual_seed(seed))
    model = build_model(cfg["model"]["width"], d["n_classes"])
    model(torch.zeros(1, 3, d["image_size"], d["image_size"]))  # materialise the lazy layer
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])

    meter = evalkit.Meter()
    step = 0
    for epoch in range(cfg["train"]["epochs"]):
        for batch in loader:
            meter.batch(batch)
            loss = nn.functional.cross_entropy(model(batch["image"]), batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            if step % cfg["train"]["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report()


if __name__ == "__main__":
    main()
