"""Colony-type classification on stained patches, torchvision-reference style."""
import argparse
import json

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import utils
from colonies import TYPES, make_patches
from evalkit import Meter
from presets import ClassificationPresetTrain


class PatchDataset(Dataset):
    def __init__(self, images, labels, transform):
        self.images, self.labels, self.transform = images, labels, transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        return self.transform(self.images[idx]), int(self.labels[idx])


def make_model(num_classes):
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(inplace=True),
        nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(inplace=True),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, num_classes))


def train_one_epoch(model, criterion, optimizer, data_loader, epoch, args, meter):
    model.train()
    metric_logger = utils.MetricLogger(delimiter="  ")
    header = f"Epoch: [{epoch}]"
    for image, target in metric_logger.log_every(data_loader, args["print_freq"], header):
        meter.batch((image, target))
        output = model(image)
        loss = criterion(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.step(loss)
        acc1 = (output.argmax(1) == target).float().mean().item() * 100.0
        metric_logger.update(loss=loss.item(), acc1=acc1, n=image.shape[0])
        if meter.done():
            break
    return {k: m.global_avg for k, m in metric_logger.meters.items()}


def main():
    parser = argparse.ArgumentParser(description="colony classification")
    parser.add_argument("--config", default="blur.json")
    cli = parser.parse_args()
    with open(cli.config) as f:
        args = json.load(f)

    torch.manual_seed(args["seed"])
    np.random.seed(args["seed"])
    torch.set_num_threads(1)

    images, labels = make_patches(args["dataset"]["num_patches"], args["dataset"]["patch_size"], args["seed"])
    dataset = PatchDataset(images, labels, ClassificationPresetTrain(args["augment"], args["seed"]))
    g = torch.Generator()
    g.manual_seed(args["seed"])
    data_loader = DataLoader(dataset, batch_size=args["batch_size"], shuffle=True, drop_last=True,
                             num_workers=args["workers"], generator=g)
    model = make_model(len(TYPES))
    criterion = nn.CrossEntropyLoss(label_smoothing=0.05)
    optimizer = torch.optim.SGD(model.parameters(), lr=args["lr"], momentum=args["momentum"],
                                weight_decay=args["weight_decay"])
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.3)
    meter = Meter()
    summary = []
    for epoch in range(args["epochs"]):
        stats = train_one_epoch(model, criterion, optimizer, data_loader, epoch, args, meter)
        lr_scheduler.step()
        summary.append(stats)
        if meter.done():
            break
    meter.report(extra={"epochs": summary})


if __name__ == "__main__":
    main()
