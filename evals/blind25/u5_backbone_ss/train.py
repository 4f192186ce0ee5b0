"""Secondary-structure tagging of backbone fragments from their dihedrals.

    python train.py configs/ss_small.py
"""
import runpy
import sys

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from backbone.data import IGNORE, FragmentDataset, collate_backbones
from backbone.net import SSNet
from evalkit import Meter


def main(cfg_path):
    cfg = runpy.run_path(cfg_path)
    torch.set_num_threads(cfg["num_threads"])
    torch.manual_seed(cfg["seed"])
    d = cfg["data"]
    train_set = FragmentDataset(seed=cfg["seed"], **d["train"])
    val_set = FragmentDataset(seed=cfg["seed"] + 1, **d["val"])
    train_loader = DataLoader(train_set, batch_size=d["batch_size"], shuffle=True, num_workers=0,
                              collate_fn=collate_backbones, drop_last=True,
                              generator=torch.Generator().manual_seed(cfg["seed"]))
    val_loader = DataLoader(val_set, batch_size=d["batch_size"], num_workers=0, collate_fn=collate_backbones)

    model = SSNet(**cfg["model"])
    opt = torch.optim.AdamW(model.parameters(), **cfg["optimizer"])
    meter = Meter()
    it = 0
    for epoch in range(cfg["runner"]["max_epochs"]):
        for x, y, mask in train_loader:
            meter.batch((x, y, mask))
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=IGNORE)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            it += 1
            if it % cfg["runner"]["log_interval"] == 0:
                print(f"Epoch [{epoch}][{it}] loss: {loss.item():.4f}")
            if meter.done():
                break
        if meter.done():
            break

    model.eval()
    hit = tot = 0
    with torch.no_grad():
        for x, y, mask in val_loader:
            pred = model(x).argmax(-1)
            hit += int((pred[mask] == y[mask]).sum())
            tot += int(mask.sum())
    q3 = hit / tot
    print(f"val Q3 {q3:.3f}")
    meter.report({"val_q3": q3, "iters": it})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "configs/ss_small.py")
