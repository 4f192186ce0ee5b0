import argparse
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
import transforms as T
from flowers import FlowerDataset, render_flowers


class SmallNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 12, 3, padding=1)
        self.conv2 = nn.Conv2d(12, 24, 3, padding=1)
        self.fc = nn.Linear(24 * 8 * 8, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def accuracy(output, target):
    return (output.argmax(dim=1) == target).float().mean().item()


def main():
    parser = argparse.ArgumentParser(description="flowers classifier")
    parser.add_argument("--config", default="configs/flowers.yaml")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    torch.manual_seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.set_num_threads(1)

    d, a = cfg["data"], cfg["augment"]
    images, labels = render_flowers(d["num_images"], d["image_size"], d["num_classes"], cfg["seed"])
    train_tf = T.Compose([
        T.RandomCrop(d["image_size"], padding=a["crop_padding"]),
        T.RandomHorizontalFlip(a["flip_p"]),
        T.HueSaturationJitter(a["hue"], a["saturation"]),
        T.ToTensor(),
        T.Normalize(a["mean"], a["std"]),
    ])
    print(train_tf)
    dataset = FlowerDataset(images, labels, train_tf, cfg["seed"])
    g = torch.Generator()
    g.manual_seed(cfg["seed"])
    loader = DataLoader(dataset, batch_size=cfg["train"]["batch_size"], shuffle=True,
                        num_workers=cfg["train"]["num_workers"], generator=g, drop_last=True)

    model = SmallNet(d["num_classes"])
    o = cfg["optim"]
    optimizer = torch.optim.SGD(model.parameters(), lr=o["lr"], momentum=o["momentum"], weight_decay=o["weight_decay"])

    meter = evalkit.Meter()
    log = []
    for epoch in range(cfg["train"]["epochs"]):
        dataset.set_epoch(epoch)
        model.train()
        t0 = time.time()
        epoch_loss, epoch_acc, n = 0.0, 0.0, 0
        for i, (images_b, targets) in enumerate(loader):
            meter.batch((images_b, targets))
            output = model(images_b)
            loss = F.cross_entropy(output, targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            epoch_loss += loss.item()
            epoch_acc += accuracy(output, targets)
            n += 1
            if meter.done():
                break
        log.append({"epoch": epoch, "loss": epoch_loss / n, "acc": epoch_acc / n})
        print(f"Epoch [{epoch}] loss {epoch_loss / n:.4f} acc {epoch_acc / n:.4f} time {time.time() - t0:.1f}s")
        if meter.done():
            break
    meter.report(extra={"epochs": log})


if __name__ == "__main__":
    main()
