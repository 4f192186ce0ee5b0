import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader

import evalkit
import transforms as T
from data import TextureFolder


class SmallConvNet(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 4 * 4, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def build_transform(cfg):
    aug = cfg["augment"]
    ops = [T.RandomHorizontalFlip(aug["flip_p"]), T.GammaLUT(aug["gamma"])]
    if aug.get("sharpen", False):
        ops.append(T.Sharpen3x3())
    ops += [T.ToTensor(), T.Normalize(aug["mean"], aug["std"])]
    return T.Compose(ops)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    seed = cfg["seed"]
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    dcfg, lcfg, ocfg = cfg["data"], cfg["loader"], cfg["optim"]
    dataset = TextureFolder(dcfg["num_images"], dcfg["image_size"], dcfg["num_classes"], seed,
                            transform=build_transform(cfg))
    loader = DataLoader(dataset, batch_size=lcfg["batch_size"], shuffle=lcfg["shuffle"],
                        num_workers=lcfg["num_workers"], drop_last=True,
                        generator=torch.Generator().manual_seed(seed))

    model = SmallConvNet(dcfg["num_classes"])
    opt = torch.optim.SGD(model.parameters(), lr=ocfg["lr"], momentum=ocfg["momentum"])

    meter = evalkit.Meter()
    correct = seen = 0
    for epoch in range(ocfg["epochs"]):
        model.train()
        for images, targets in loader:
            meter.batch((images, targets))
            logits = model(images)
            loss = F.cross_entropy(logits, targets)
            opt.zero_grad()
            loss.backward()
            opt.step()
            correct += int((logits.argmax(1) == targets).sum())
            seen += targets.numel()
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break
        print(f"epoch {epoch}: running acc {correct / max(seen, 1):.3f}")
    meter.report(extra={"train_correct": correct, "train_seen": seen})


if __name__ == "__main__":
    main()
