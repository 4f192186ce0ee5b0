"""Train a small CNN on augmented glyphs."""
import argparse
import random
import tomllib

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from data import AugmentedGlyphs, make_glyphs


def build_model(n_classes):
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, n_classes),
    )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config, "rb") as f:
        cfg = tomllib.load(f)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    # Small model: intra-op threads cost more in sync than they save.
    torch.set_num_threads(1)

    d, aug = cfg["data"], cfg["augment"]
    images, labels = make_glyphs(d["n_images"], d["size"], d["n_classes"], seed)
    dataset = AugmentedGlyphs(images, labels, aug["pad"], aug["max_row_shift"])
    loader = DataLoader(dataset, batch_size=d["batch_size"], shuffle=True, num_workers=d["num_workers"])
    model = build_model(d["n_classes"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                            weight_decay=cfg["optim"]["weight_decay"])

    meter = evalkit.Meter()
    for epoch in range(cfg["train"]["epochs"]):
        for images_b, labels_b in loader:
            meter.batch((images_b, labels_b))
            loss = nn.functional.cross_entropy(model(images_b), labels_b)
            opt.zero_grad()
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
