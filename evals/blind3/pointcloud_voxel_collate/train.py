import argparse

import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
from net import VoxelPointNet
from shapes import ShapeClouds
from voxelize import VoxelCollate


def build_optimizer(cfg, params):
    if cfg["name"] == "adamw":
        return torch.optim.AdamW(params, lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    return torch.optim.SGD(params, lr=cfg["lr"], momentum=0.9)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    cfg = yaml.safe_load(open(ap.parse_args().config))
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])

    ds = ShapeClouds(cfg["dataset"], cfg["seed"])
    vcfg, sched = cfg["voxelizer"], cfg["schedule"]
    loader = DataLoader(ds, batch_size=sched["batch_size"], shuffle=True, drop_last=True,
                        collate_fn=VoxelCollate(vcfg["voxel_size"], vcfg["extent"]),
                        generator=torch.Generator().manual_seed(cfg["seed"]))
    model = VoxelPointNet(cfg["model"]["width"], len(ds.classes), vcfg["voxel_size"])
    opt = build_optimizer(cfg["optimizer"], model.parameters())
    meter = evalkit.Meter()
    history, step = [], 0
    for epoch in range(sched["epochs"]):
        for batch in loader:
            meter.batch((batch["labels"], batch["coords"], batch["feats"]))
            logits = model(batch["coords"], batch["feats"], len(batch["labels"]))
            loss = F.cross_entropy(logits, batch["labels"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            if step % sched["log_every"] == 0:
                history.append({"step": step, "loss": round(loss.item(), 6),
                                "voxels_per_cloud": round(len(batch["coords"]) / len(batch["labels"]), 3)})
                print(history[-1], flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"history": history})


if __name__ == "__main__":
    main()
