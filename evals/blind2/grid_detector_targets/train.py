"""A tiny single-scale YOLO-style detector on synthetic shapes."""
import argparse
import json

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from logging_utils import MetricLogger
from shapes import ShapesDetection
from targets import DetectionCollate, TargetBuilder


class TinyYolo(nn.Module):
    def __init__(self, num_anchors, num_classes):
        super().__init__()
        self.na, self.nc = num_anchors, num_classes
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.LeakyReLU(0.1),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.LeakyReLU(0.1),
            nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.LeakyReLU(0.1))
        self.head = nn.Conv2d(32, num_anchors * (5 + num_classes), 1)

    def forward(self, x):
        out = self.head(self.backbone(x))  # [B, A*(5+C), S, S]
        b, _, s, _ = out.shape
        return out.view(b, self.na, 5 + self.nc, s, s).permute(0, 1, 3, 4, 2)


def yolo_loss(pred, batch):
    pos = batch["obj"] > 0
    obj_logit = pred[..., 4]
    l_obj = F.binary_cross_entropy_with_logits(obj_logit[pos], batch["obj"][pos], reduction="sum")
    l_noobj = F.binary_cross_entropy_with_logits(obj_logit, torch.zeros_like(obj_logit), weight=batch["noobj"],
                                                 reduction="sum")
    xy = torch.sigmoid(pred[..., 0:2][pos])
    l_box = F.mse_loss(xy, batch["box"][..., 0:2][pos], reduction="sum") + \
        F.mse_loss(pred[..., 2:4][pos], batch["box"][..., 2:4][pos], reduction="sum")
    l_cls = F.cross_entropy(pred[..., 5:][pos], batch["cls"][pos], reduction="sum")
    n = pred.shape[0]
    return {"obj": l_obj / n, "noobj": 0.5 * l_noobj / n, "box": 5.0 * l_box / n, "cls": l_cls / n}


def train_one_epoch(model, optimizer, loader, epoch, print_freq, meter):
    model.train()
    logger = MetricLogger()
    for batch in logger.log_every(loader, print_freq, header=f"Epoch: [{epoch}]"):
        meter.batch(batch)
        losses = yolo_loss(model(batch["images"]), batch)
        loss = sum(losses.values())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.step(loss)
        logger.update(loss=loss.item(), **{k: v.item() for k, v in losses.items()})
        if meter.done():
            break
    return {k: m.global_avg for k, m in logger.meters.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    cfg = json.load(open(parser.parse_args().config))
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    ds_cfg, head = cfg["dataset"], cfg["head"]
    dataset = ShapesDetection(seed=cfg["seed"], **ds_cfg)
    builder = TargetBuilder(ds_cfg["image_size"], head["grid"], head["anchors"], head["ignore_iou"])
    loader = DataLoader(dataset, shuffle=True, collate_fn=DetectionCollate(builder),
                        generator=torch.Generator().manual_seed(cfg["seed"]), **cfg["loader"])
    model = TinyYolo(len(head["anchors"]), head["num_classes"])
    optimizer = torch.optim.AdamW(model.parameters(), **cfg["optimizer"])

    meter = evalkit.Meter()
    history = []
    for epoch in range(cfg["epochs"]):
        dataset.set_epoch(epoch)
        history.append(train_one_epoch(model, optimizer, loader, epoch, cfg["print_freq"], meter))
        if meter.done():
            break
    meter.report(extra={"epoch_losses": history})


if __name__ == "__main__":
    main()
