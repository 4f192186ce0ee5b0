"""Train a page-layout classifier on dewarped phone photos of document pages."""
import argparse
import random

import numpy as np
import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
from docpage.dataset import PagePhotoDataset
from docpage.model import LayoutNet
from docpage.synth import make_pages
from docpage.transforms import build_transforms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="dewarp.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    d = cfg["data"]
    pages = make_pages(d["num_pages"], d["image_size"], d["curvature_range"],
                       d["perspective"], d["noise_std"], seed)
    transform = build_transforms(cfg["transforms"], seed=seed + 1)
    dataset = PagePhotoDataset(pages, transform)
    gen = torch.Generator().manual_seed(seed)
    loader = DataLoader(dataset, batch_size=cfg["loader"]["batch_size"],
                        shuffle=cfg["loader"]["shuffle"], num_workers=cfg["loader"]["num_workers"],
                        generator=gen, drop_last=True)

    model = LayoutNet()
    o = cfg["optim"]
    opt = torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"],
                          weight_decay=o["weight_decay"])
    meter = evalkit.Meter()
    step = 0
    correct = seen = 0
    for epoch in range(cfg["train"]["epochs"]):
        model.train()
        for images, labels in loader:
            meter.batch((images, labels))
            logits = model(images)
            loss = F.cross_entropy(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            correct += int((logits.argmax(1) == labels).sum())
            seen += labels.numel()
            if step % cfg["train"]["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} acc {correct / seen:.3f}")
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"train_acc": correct / max(seen, 1)})


if __name__ == "__main__":
    main()
