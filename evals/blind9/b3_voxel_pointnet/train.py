import argparse
import tomllib

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from evalkit import Meter
from pcd.data import ScanDataset, collate
from pcd.shapes import CLASSES


class PointNet(nn.Module):
    def __init__(self, widths, head, n_classes):
        super().__init__()
        layers, c_in = [], 3
        for w in widths:
            layers += [nn.Conv1d(c_in, w, 1), nn.BatchNorm1d(w), nn.ReLU()]
            c_in = w
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Linear(c_in, head), nn.ReLU(), nn.Linear(head, n_classes))

    def forward(self, pts):  # (B, N, 3)
        f = self.features(pts.transpose(1, 2))
        return self.classifier(f.max(dim=2).values)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="pointnet.toml")
    args = ap.parse_args()
    with open(args.config, "rb") as fh:
        cfg = tomllib.load(fh)

    seed = cfg["experiment"]["seed"]
    torch.manual_seed(seed)
    np.random.seed(seed)
    torch.set_num_threads(1)

    ds = ScanDataset(cfg["data"], seed)
    lc = cfg["loader"]
    loader = DataLoader(ds, batch_size=lc["batch_size"], shuffle=lc["shuffle"], num_workers=lc["num_workers"],
                        drop_last=lc["drop_last"], collate_fn=collate, generator=torch.Generator().manual_seed(seed))
    model = PointNet(cfg["model"]["widths"], cfg["model"]["head"], len(CLASSES))
    oc = cfg["optim"]
    opt = torch.optim.Adam(model.parameters(), lr=oc["lr"], weight_decay=oc["weight_decay"])
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=oc["step_size"], gamma=oc["gamma"])
    crit = nn.CrossEntropyLoss()

    meter = Meter()
    epoch_stats = []
    for epoch in range(cfg["experiment"]["epochs"]):
        model.train()
        total, correct, loss_sum = 0, 0, 0.0
        for points, labels in loader:
            meter.batch([points, labels])
            logits = model(points)
            loss = crit(logits, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            loss_sum += loss.item() * labels.numel()
            correct += (logits.argmax(1) == labels).sum().item()
            total += labels.numel()
            if meter.done():
                break
        sched.step()
        epoch_stats.append({"epoch": epoch, "loss": round(loss_sum / max(total, 1), 5),
                            "acc": round(correct / max(total, 1), 4)})
        print(f"epoch {epoch}: loss {loss_sum / max(total, 1):.4f} acc {correct / max(total, 1):.3f}", flush=True)
        if meter.done():
            break
    meter.report(extra={"epochs": epoch_stats})


if __name__ == "__main__":
    main()
