"""Train a small CNN on CLAHE-equalised synthetic chest radiographs."""
import argparse
import random

import numpy as np
import torch
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from xray import transforms as T
from xray.dataset import ChestXrayDataset
from xray.model import SmallCXRNet


def build_transform(cfg):
    pp = cfg["preprocess"]
    return T.Compose([
        T.CLAHE(tiles=pp["clahe"]["tiles"], clip_limit=pp["clahe"]["clip_limit"],
                nbins=pp["clahe"]["nbins"], bit_depth=cfg["data"]["bit_depth"]),
        T.RandomHorizontalFlip(pp["hflip_p"]),
        T.ToTensor(),
        T.Resize(pp["resize"]),
        T.Normalize(pp["mean"], pp["std"]),
    ])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="config.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    d = cfg["data"]
    ds = ChestXrayDataset(d["num_images"], d["raw_size"], d["bit_depth"], seed, build_transform(cfg))
    g = torch.Generator().manual_seed(seed)
    loader = DataLoader(ds, batch_size=cfg["train"]["batch_size"], shuffle=True, generator=g,
                        num_workers=0, drop_last=True)

    model = SmallCXRNet(d["num_classes"])
    tr = cfg["train"]
    opt = torch.optim.AdamW(model.parameters(), lr=tr["lr"], weight_decay=tr["weight_decay"])
    crit = torch.nn.CrossEntropyLoss()
    meter = Meter()

    step, correct, seen = 0, 0, 0
    for epoch in range(tr["epochs"]):
        model.train()
        for images, labels in loader:
            meter.batch((images, labels))
            logits = model(images)
            loss = crit(logits, labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            correct += int((logits.argmax(1) == labels).sum())
            seen += labels.numel()
            if step % tr["log_every"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} acc {correct / seen:.3f}")
            if meter.done() or step >= tr["max_steps"]:
                break
        if meter.done() or step >= tr["max_steps"]:
            break
    meter.report({"train_acc": correct / max(seen, 1), "steps": step})


if __name__ == "__main__":
    main()
