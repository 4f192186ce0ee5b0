"""Train a buried-object detector on migrated GPR B-scans.

    python train.py --config gpr.yaml
"""
import argparse
import time

import torch
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from gprkit.dataset import BScanDataset
from gprkit.model import BScanNet


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="gpr.yaml")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(cfg.get("torch_threads", 1))
    torch.manual_seed(cfg["seed"])
    tc = cfg["train"]
    dataset = BScanDataset(cfg, seed=cfg["seed"])
    loader = DataLoader(dataset, batch_size=tc["batch_size"], shuffle=True, drop_last=True,
                        num_workers=0, generator=torch.Generator().manual_seed(cfg["seed"]))

    model = BScanNet()
    opt = torch.optim.AdamW(model.parameters(), lr=tc["lr"], weight_decay=tc["weight_decay"])
    meter = Meter()
    t_start = time.time()
    correct = seen = 0
    for epoch in range(tc["epochs"]):
        dataset.set_epoch(epoch)
        model.train()
        for step, (x, y) in enumerate(loader):
            meter.batch((x, y))
            logits = model(x)
            loss = F.cross_entropy(logits, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int((logits.argmax(1) == y).sum())
            seen += y.numel()
            if step % tc["log_every"] == 0:
                print(f"epoch {epoch} step {step:3d} loss {loss.item():.4f} "
                      f"acc {correct / seen:.3f} ({time.time() - t_start:.1f}s)")
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"train_acc": round(correct / max(seen, 1), 4)})


if __name__ == "__main__":
    main()
