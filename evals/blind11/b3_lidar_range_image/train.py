"""Range-image semantic segmentation of synthetic HDL-32E sweeps."""
import argparse
import configparser
import random
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit
import velodyne
from projection import RangeProjector

RangeBatch = namedtuple("RangeBatch", ["images", "targets", "sweep_ids"])


class SweepDataset(Dataset):
    """Raw packet sweeps; projection with a random yaw and point dropout at fetch time."""

    def __init__(self, cfg, generator):
        sensor, data, proj = cfg["sensor"], cfg["data"], cfg["projection"]
        rng = np.random.default_rng(cfg.getint("DEFAULT", "seed"))
        self.sweeps = [velodyne.synth_sweep(rng, sensor.getint("firings_per_sweep"), data.getint("objects_per_sweep"),
                                            sensor.getfloat("distance_resolution"), sensor.getfloat("sensor_height"))
                       for _ in range(data.getint("num_sweeps"))]
        self.project = RangeProjector(proj.getint("width"), sensor.getfloat("distance_resolution"),
                                      sensor.getfloat("sensor_height"))
        self.rotate = proj.getboolean("rotate")
        self.dropout = proj.getfloat("point_dropout")
        self.generator = generator

    def __len__(self):
        return len(self.sweeps)

    def _load(self, idx):
        packets, labels = self.sweeps[idx]
        n_points = len(labels)
        rotation = int(torch.randint(0, 36000, (1,), generator=self.generator)) if self.rotate else 0
        keep = (torch.rand(n_points, generator=self.generator) >= self.dropout).tolist()
        image, target = self.project(packets, labels, rotation=rotation, keep=keep)
        return image, target, idx

    def __getitem__(self, idx):
        return self._load(idx)

    def __getitems__(self, indices):
        return [self._load(i) for i in indices]


def collate_range(samples):
    images, targets, ids = zip(*samples)
    return RangeBatch(torch.stack(images), torch.stack(targets), torch.tensor(ids))


class RangeSegNet(nn.Module):
    def __init__(self, in_ch=6, width=8, num_classes=len(velodyne.CLASSES)):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(in_ch, width, 3, stride=(1, 2), padding=1), nn.ReLU(),
                                 nn.Conv2d(width, width, 3, stride=(1, 2), padding=1), nn.ReLU())
        self.head = nn.Conv2d(width, num_classes, 1)

    def forward(self, x):
        y = self.head(self.enc(x))
        return F.interpolate(y, size=x.shape[-2:], mode="nearest")


def train_epoch(model, loader, optimizer, meter, stats):
    model.train()
    for batch in loader:
        meter.batch(batch)
        logits = model(batch.images)
        loss = F.cross_entropy(logits, batch.targets, ignore_index=-100)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.step(loss)
        if meter.steps % 8 == 0:  # pixel accuracy on every 8th batch
            mask = batch.targets != -100
            stats["correct"] += int((logits.detach().argmax(1)[mask] == batch.targets[mask]).sum())
            stats["pixels"] += int(mask.sum())
        if meter.done():
            return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="lidar.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)

    seed = cfg.getint("DEFAULT", "seed")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    dataset = SweepDataset(cfg, torch.Generator().manual_seed(seed + 11))
    tcfg = cfg["train"]
    loader = DataLoader(dataset, batch_size=tcfg.getint("batch_size"), shuffle=True, drop_last=True,
                        num_workers=cfg["data"].getint("num_workers"), collate_fn=collate_range,
                        generator=torch.Generator().manual_seed(seed + 12))
    model = RangeSegNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=tcfg.getfloat("lr"))
    meter = evalkit.Meter()
    stats = {"correct": 0, "pixels": 0}
    for epoch in range(tcfg.getint("epochs")):
        if not train_epoch(model, loader, optimizer, meter, stats):
            break
        print(f"epoch {epoch}: pixel acc {stats['correct'] / max(stats['pixels'], 1):.3f}")
    meter.report({"pixel_acc": round(stats["correct"] / max(stats["pixels"], 1), 6), "pixels": stats["pixels"]})


if __name__ == "__main__":
    main()
