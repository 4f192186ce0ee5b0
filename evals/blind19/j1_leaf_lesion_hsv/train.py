"""Train a leaf-lesion severity classifier on HSV + lesion-mask channels."""
import argparse
import time

import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from leafspot import LeafLesionDataset, LesionNet, build_transforms


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="config.yaml")
    return p.parse_args()


def main():
    args = parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    tfm = build_transforms(cfg)
    ds = LeafLesionDataset(cfg["data"]["num_images"], cfg["data"]["image_size"], cfg["seed"], transform=tfm)
    lc = cfg["loader"]
    g = torch.Generator().manual_seed(cfg["seed"])
    loader = DataLoader(ds, batch_size=lc["batch_size"], shuffle=lc["shuffle"],
                        num_workers=lc["num_workers"], generator=g, drop_last=True)

    model = LesionNet()
    tc = cfg["train"]
    opt = torch.optim.AdamW(model.parameters(), lr=tc["lr"], weight_decay=tc["weight_decay"])
    meter = Meter()
    correct = seen = 0
    t0 = time.time()
    for epoch in range(tc["epochs"]):
        ds.set_epoch(epoch)
        model.train()
        for it, batch in enumerate(loader):
            meter.batch(batch)
            logits, frac = model(batch["pixels"])
            loss = F.cross_entropy(logits, batch["label"]) + 4.0 * F.mse_loss(frac, batch["lesion_frac"])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int((logits.argmax(1) == batch["label"]).sum())
            seen += batch["label"].numel()
            if it % tc["log_every"] == 0:
                print(f"epoch {epoch} it {it} loss {loss.item():.4f} acc {correct / max(seen, 1):.3f} "
                      f"({time.time() - t0:.1f}s)", flush=True)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"train_acc": correct / max(seen, 1)})


if __name__ == "__main__":
    main()
