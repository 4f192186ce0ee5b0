"""Train a small cell-feature classifier on EL images of solar panels."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

import evalkit
from elpanel import CellCrackMask, CellStats, Compose, ELPanelDataset, GridDetect, ToTensor, collate_panels


class CellNet(nn.Module):
    def __init__(self, n_feat, hidden, n_classes=4):
        super().__init__()
        self.cell = nn.Sequential(nn.Linear(n_feat, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(2 * hidden, n_classes)

    def forward(self, cells):
        h = self.cell(cells)
        return self.head(torch.cat([h.mean(1), h.max(1).values], dim=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="el.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    d, t, ld, tr = cfg["data"], cfg["transforms"], cfg["loader"], cfg["train"]
    transform = Compose([
        GridDetect(d["rows"], d["cols"], t["gap_fraction"]),
        CellCrackMask(t["crack_delta"], t["median_ratio"], t["cell_margin"]),
        CellStats(),
        ToTensor(),
    ])
    ds = ELPanelDataset(d["num_panels"], d["rows"], d["cols"], d["cell_px"], d["gap_px"], d["max_shift"],
                        seed, transform=transform)
    g = torch.Generator().manual_seed(seed)
    loader = DataLoader(ds, batch_size=ld["batch_size"], shuffle=ld["shuffle"], num_workers=ld["num_workers"],
                        collate_fn=collate_panels, generator=g, drop_last=True)
    model = CellNet(6, tr["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=tr["lr"])
    loss_fn = nn.CrossEntropyLoss()
    meter = evalkit.Meter()
    grid_ok = 0
    for epoch in range(tr["epochs"]):
        model.train()
        for batch in loader:
            meter.batch(batch)
            logits = model(batch["cells"])
            loss = loss_fn(logits, batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            grid_ok += int(batch["grid_ok"].sum())
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"grid_ok": grid_ok, "epochs_started": epoch + 1})


if __name__ == "__main__":
    main()
