"""Classify underwater scenes after dark-channel dehazing and grey-world colour correction."""
import argparse
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
from uwdata import UnderwaterScenes, transforms as T


class SceneNet(nn.Module):
    def __init__(self, width=16, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, width, 3, stride=2, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, 2 * width, 3, stride=2, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(2 * width, num_classes)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


def build_transform(cfg):
    dh = cfg["dehaze"]
    return T.Compose([
        T.RandomCrop(cfg["data"]["crop_size"]),
        T.RandomHorizontalFlip(cfg["data"]["hflip_p"]),
        T.DarkChannelDehaze(dh["patch_size"], dh["omega"], dh["t0"], dh["top_percent"]),
        T.GreyWorld(),
        T.ToTensor(),
        T.Normalize(cfg["normalize"]["mean"], cfg["normalize"]["std"]),
    ])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/dehaze.yaml")
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    transform = build_transform(cfg)
    print(transform)
    dataset = UnderwaterScenes(cfg["data"]["num_images"], cfg["data"]["image_size"],
                               seed=cfg["seed"], transform=transform)
    g = torch.Generator().manual_seed(cfg["seed"])
    loader = DataLoader(dataset, batch_size=cfg["loader"]["batch_size"], shuffle=cfg["loader"]["shuffle"],
                        num_workers=cfg["loader"]["num_workers"], drop_last=cfg["loader"]["drop_last"],
                        generator=g)

    model = SceneNet(cfg["model"]["width"], cfg["model"]["num_classes"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["optim"]["lr"],
                                  weight_decay=cfg["optim"]["weight_decay"])

    meter = evalkit.Meter()
    log_every = cfg["train"]["log_every"]
    epoch_acc = []
    t_start = time.time()
    step = 0
    for epoch in range(cfg["train"]["epochs"]):
        model.train()
        correct = seen = 0
        running = 0.0
        for images, labels in loader:
            meter.batch((images, labels))
            logits = model(images)
            loss = F.cross_entropy(logits, labels)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            meter.step(loss)
            step += 1

            correct += int((logits.argmax(dim=1) == labels).sum())
            seen += labels.numel()
            running += loss.item()
            if step % log_every == 0:
                print(f"epoch {epoch} step {step} loss {running / log_every:.4f} "
                      f"acc {correct / seen:.3f} ({time.time() - t_start:.1f}s)", flush=True)
                running = 0.0
            if meter.done():
                break
        epoch_acc.append(correct / max(seen, 1))
        if meter.done():
            break

    meter.report(extra={"epoch_acc": epoch_acc})


if __name__ == "__main__":
    main()
