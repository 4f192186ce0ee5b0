import argparse
import json

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from fabric.data import FabricPatches
from fabric.transforms import build_train_transform


class SmallNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.fc(x.mean(dim=(2, 3)))


def fit(model, loader, optimizer, epochs, meter):
    log = []
    for epoch in range(epochs):
        running, seen = 0.0, 0
        for images, targets in loader:
            meter.batch((images, targets))
            out = model(images)
            loss = F.cross_entropy(out, targets)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            meter.step(loss)
            running += loss.item() * images.size(0)
            seen += images.size(0)
            if meter.done():
                break
        log.append({"epoch": epoch, "loss": round(running / max(seen, 1), 5)})
        print(log[-1])
        if meter.done():
            break
    return log


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    dataset = FabricPatches(cfg, build_train_transform(cfg))
    loader = DataLoader(dataset, batch_size=cfg["batch_size"], shuffle=True, drop_last=True,
                        num_workers=cfg["workers"],
                        generator=torch.Generator().manual_seed(cfg["seed"]))
    model = SmallNet(cfg["num_classes"])
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
    meter = evalkit.Meter()
    log = fit(model, loader, optimizer, cfg["epochs"], meter)
    meter.report(extra={"epochs": log})


if __name__ == "__main__":
    main()
