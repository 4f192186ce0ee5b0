"""Train a lesion classifier on CT slices reconstructed on the fly from sinograms."""
import argparse
import random

import numpy as np
import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
from ctrecon.dataset import SinogramDataset
from ctrecon.model import LesionNet
from ctrecon.transforms import Compose, FilteredBackprojection, HUWindow, RandomFlip, ToTensor


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="ct.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    d, r, t = cfg["data"], cfg["recon"], cfg["train"]
    ds = SinogramDataset(d["n_slices"], d["n_angles"], d["n_detectors"], d["noise"], cfg["seed"])
    ds.transform = Compose([
        FilteredBackprojection(ds.theta, ds.det, r["image_size"], r["filter"]),
        HUWindow(r["window_level"], r["window_width"]),
        RandomFlip(t["flip_p"]),
        ToTensor(),
    ])
    loader = DataLoader(ds, batch_size=t["batch_size"], shuffle=True, num_workers=0, drop_last=True)

    model = LesionNet()
    opt = torch.optim.Adam(model.parameters(), lr=t["lr"])
    meter = evalkit.Meter()
    for epoch in range(t["epochs"]):
        correct = seen = 0
        for images, labels in loader:
            meter.batch((images, labels))
            logits = model(images)
            loss = F.cross_entropy(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int((logits.argmax(1) == labels).sum())
            seen += len(labels)
            if meter.done():
                break
        print(f"epoch {epoch}: acc {correct / max(seen, 1):.3f}")
        if meter.done():
            break
    meter.report()


if __name__ == "__main__":
    main()
