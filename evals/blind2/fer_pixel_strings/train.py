import argparse
import runpy

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from fer_dataset import FER2013
from make_csv import EMOTIONS, write_fer_csv


def make_model(channels, num_classes):
    c1, c2 = channels
    return nn.Sequential(
        nn.Conv2d(1, c1, 3, stride=2, padding=1), nn.BatchNorm2d(c1), nn.ReLU(),
        nn.Conv2d(c1, c2, 3, stride=2, padding=1), nn.BatchNorm2d(c2), nn.ReLU(),
        nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(4 * c2, num_classes))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/fer_config.py")
    cfg = runpy.run_path(parser.parse_args().config)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    data_cfg = dict(cfg["data"])
    write_fer_csv(data_cfg["csv_file"], data_cfg.pop("num_images"), data_cfg["image_size"], cfg["seed"])
    train_set = FER2013(usage="Training", seed=cfg["seed"], **data_cfg)
    loader = DataLoader(train_set, shuffle=True, generator=torch.Generator().manual_seed(cfg["seed"]), **cfg["loader"])

    model = make_model(**cfg["model"])
    opt_cfg = cfg["optimizer"]
    optimizer = torch.optim.SGD(model.parameters(), **opt_cfg)
    sched = cfg["schedule"]
    warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: min(1.0, (it + 1) / sched["warmup_iters"]))

    meter = evalkit.Meter()
    it = 0
    epoch_stats = []
    class_counts = [0] * len(EMOTIONS)
    for epoch in range(sched["epochs"]):
        train_set.set_epoch(epoch)
        total_loss, correct, seen = 0.0, 0, 0
        for images, labels in loader:
            meter.batch((images, labels))
            logits = model(images)
            loss = F.cross_entropy(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            warmup.step()
            meter.step(loss)
            it += 1
            total_loss += loss.item() * len(labels)
            correct += (logits.argmax(1) == labels).sum().item()
            seen += len(labels)
            for c in labels.tolist():
                class_counts[c] += 1
            if it % sched["print_freq"] == 0:
                print(f"Epoch: [{epoch}][{it}]  Loss {total_loss / seen:.4f}  Acc@1 {100.0 * correct / seen:.2f}")
            if meter.done():
                break
        epoch_stats.append({"loss": total_loss / seen, "acc": correct / seen})
        if meter.done():
            break
    meter.report(extra={"epochs": epoch_stats, "class_counts": dict(zip(EMOTIONS, class_counts))})


if __name__ == "__main__":
    main()
