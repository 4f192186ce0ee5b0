"""Train a lesion-type classifier on top-hat enhanced fundus patches.

    python train.py --config config.yaml
"""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

import evalkit
from fundus.data import FundusPatches, build_transform
from fundus.model import LesionNet
from fundus.utils import MetricLogger


def train_one_epoch(model, criterion, optimizer, loader, epoch, meter, print_freq):
    model.train()
    logger = MetricLogger()
    for images, target in logger.log_every(loader, print_freq, header=f"Epoch: [{epoch}]"):
        meter.batch((images, target))
        output = model(images)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        acc = (output.argmax(1) == target).float().mean()
        logger.update(loss=loss.item(), acc1=acc.item())
        meter.step(loss)
        if meter.done():
            return logger, True
    return logger, False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.yaml")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    aug_gen = torch.Generator().manual_seed(seed + 1)
    dataset = FundusPatches(cfg, transform=build_transform(cfg, aug_gen), seed=seed)
    tc = cfg["train"]
    loader = DataLoader(dataset, batch_size=tc["batch_size"], shuffle=True, drop_last=True,
                        num_workers=tc["num_workers"],
                        generator=torch.Generator().manual_seed(seed + 2))
    model = LesionNet(cfg["model"]["widths"], cfg["data"]["num_classes"])
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=tc["lr"], weight_decay=tc["weight_decay"])

    meter = evalkit.Meter()
    history = []
    for epoch in range(tc["epochs"]):
        logger, stop = train_one_epoch(model, criterion, optimizer, loader, epoch, meter, tc["print_freq"])
        history.append({"epoch": epoch,
                        "loss": round(logger.meters["loss"].global_avg, 6),
                        "acc1": round(logger.meters["acc1"].global_avg, 6)})
        print(f"epoch {epoch}: {history[-1]}", flush=True)
        if stop:
            break
    meter.report(extra={"epochs": history})


if __name__ == "__main__":
    main()
