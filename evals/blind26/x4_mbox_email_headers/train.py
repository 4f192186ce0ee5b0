"""Folder classifier for an exported mailbox (hashed subject/body tokens + header signals)."""
import sys
import tomllib

import torch
from torch import nn
from torch.utils.data import DataLoader

from evalkit import Meter
from mailfolder.archive import FOLDERS
from mailfolder.dataset import MboxFolderDataset


def run(cfg):
    exp, tr = cfg["experiment"], cfg["training"]
    torch.set_num_threads(exp["threads"])
    torch.manual_seed(exp["seed"])
    ds = MboxFolderDataset(cfg)
    dl = DataLoader(ds, batch_size=tr["batch_size"], shuffle=True, num_workers=0, drop_last=True,
                    generator=torch.Generator().manual_seed(exp["seed"]))
    dim = cfg["features"]["hash_dim"] + 8
    net = nn.Sequential(nn.Linear(dim, tr["hidden"]), nn.ReLU(), nn.Dropout(0.1), nn.Linear(tr["hidden"], len(FOLDERS)))
    opt = torch.optim.SGD(net.parameters(), lr=tr["lr"], momentum=0.9)
    meter = Meter()
    hits = total = 0
    for epoch in range(tr["epochs"]):
        for x, y in dl:
            meter.batch((x, y))
            out = net(x)
            loss = nn.functional.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            hits += (out.argmax(1) == y).sum().item()
            total += y.numel()
            if meter.done():
                break
        print(f"[epoch {epoch}] loss={loss.item():.4f} acc={hits / total:.3f}", file=sys.stderr)
        if meter.done():
            break
    meter.report({"running_acc": round(hits / total, 4)})


if __name__ == "__main__":
    args = sys.argv[1:]
    path = args[args.index("--config") + 1] if "--config" in args else "mailclf.toml"
    with open(path, "rb") as fh:
        run(tomllib.load(fh))
