import argparse
import time

import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from plates import PlateCropDataset, build_transforms


class PlateMLP(nn.Module):
    def __init__(self, in_dim, hidden, n_classes, dropout):
        super().__init__()
        self.net = nn.Sequential(
            nn.LayerNorm(in_dim),
            nn.Linear(in_dim, hidden), nn.GELU(), nn.Dropout(dropout),
            nn.Linear(hidden, hidden), nn.GELU(),
            nn.Linear(hidden, n_classes),
        )

    def forward(self, x):
        return self.net(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    dc = cfg["data"]
    ds = PlateCropDataset(dc["num_plates"], dc["height"], dc["width"], dc["min_chars"], dc["max_chars"],
                          seed=cfg["seed"], transform=build_transforms(cfg))
    lc = cfg["loader"]
    g = torch.Generator().manual_seed(cfg["seed"])
    loader = DataLoader(ds, batch_size=lc["batch_size"], shuffle=lc["shuffle"], num_workers=lc["num_workers"],
                        drop_last=lc["drop_last"], generator=g)
    in_dim = 2 * dc["width"] + dc["height"] + 4
    n_classes = dc["max_chars"] - dc["min_chars"] + 1
    model = PlateMLP(in_dim, cfg["model"]["hidden"], n_classes, cfg["model"]["dropout"])
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"], weight_decay=cfg["optim"]["weight_decay"])
    crit = nn.CrossEntropyLoss()
    meter = Meter()

    step, correct, seen = 0, 0, 0
    t0 = time.time()
    for epoch in range(cfg["optim"]["epochs"]):
        ds.set_epoch(epoch)
        model.train()
        for feats, labels in loader:
            meter.batch((feats, labels))
            logits = model(feats)
            loss = crit(logits, labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int((logits.argmax(1) == labels).sum())
            seen += labels.numel()
            step += 1
            if step % cfg["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} acc {correct / seen:.3f} "
                      f"({time.time() - t0:.1f}s)", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"train_acc": correct / max(seen, 1)})


if __name__ == "__main__":
    main()
