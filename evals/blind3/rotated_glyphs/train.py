"""Train a small CNN on synthetic glyphs with rotation augmentation."""
import argparse
import json

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from glyphs import transforms as T
from glyphs.dataset import GlyphDataset
from glyphs.model import GlyphNet
from glyphs.synth import make_split, make_templates


class AverageMeter:
    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def train_one_epoch(model, loader, optimizer, epoch, cfg, meter, log):
    model.train()
    losses = AverageMeter()
    for i, (images, target) in enumerate(loader):
        meter.batch((images, target))
        output = model(images)
        loss = F.cross_entropy(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.step(loss)
        losses.update(loss.item(), images.size(0))
        if i % cfg["print_freq"] == 0:
            print(f"Epoch: [{epoch}][{i}/{len(loader)}]\tLoss {losses.avg:.4f}", flush=True)
        if meter.done():
            break
    log.append({"epoch": epoch, "loss": round(losses.avg, 6)})


@torch.no_grad()
def evaluate(model, images, labels, aug):
    model.eval()
    x = torch.from_numpy(images).float().div(255.0).unsqueeze(1)
    x = (x - aug["mean"]) / aug["std"]
    pred = model(x).argmax(1)
    return float((pred == torch.from_numpy(labels)).float().mean())


def main():
    parser = argparse.ArgumentParser(description="glyph classifier")
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)
    torch.set_num_threads(1)
    torch.manual_seed(cfg["seed"])
    rng = np.random.default_rng(cfg["seed"])
    ds_cfg, aug = cfg["dataset"], cfg["augment"]
    templates = make_templates(ds_cfg["num_classes"], ds_cfg["image_size"], rng)
    tr_x, tr_y = make_split(ds_cfg["num_train"], templates, rng)
    va_x, va_y = make_split(ds_cfg["num_val"], templates, rng)

    train_tf = T.Compose([
        T.RandomRotation(aug["rotate_degrees"]),
        T.RandomCrop(ds_cfg["image_size"], aug["crop_padding"]),
        T.ToTensor(),
        T.Normalize(aug["mean"], aug["std"]),
    ])
    train_set = GlyphDataset(tr_x, tr_y, train_tf, seed=cfg["seed"])
    g = torch.Generator()
    g.manual_seed(cfg["seed"])
    loader = DataLoader(train_set, batch_size=cfg["batch_size"], shuffle=True, num_workers=0,
                        generator=g, drop_last=True)

    model = GlyphNet(ds_cfg["num_classes"])
    o = cfg["optim"]
    optimizer = torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"],
                                nesterov=o["nesterov"], weight_decay=o["weight_decay"])
    meter = evalkit.Meter()
    log = []
    for epoch in range(cfg["epochs"]):
        train_one_epoch(model, loader, optimizer, epoch, cfg, meter, log)
        if meter.done():
            break
    acc = evaluate(model, va_x, va_y, aug)
    print(f"val acc {acc:.4f}")
    meter.report(extra={"epochs": log, "val_acc": acc})


if __name__ == "__main__":
    main()
