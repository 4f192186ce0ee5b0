"""Train a tiny heatmap pose network on synthetic stick figures."""
import argparse
import random

import numpy as np
import torch
import yaml
from torch.utils.data import DataLoader

from evalkit import Meter
from posekit.dataset import StickFigurePose
from posekit.figures import JOINTS
from posekit.net import TinyPoseNet


class JointsMSELoss(torch.nn.Module):
    def forward(self, output, target, weight):
        w = weight.unsqueeze(-1).unsqueeze(-1)
        return 0.5 * ((output * w - target * w) ** 2).mean()


class PoseTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        seed = cfg["seed"]
        self.dataset = StickFigurePose(cfg, seed)
        g = torch.Generator()
        g.manual_seed(seed)
        lc = cfg["loader"]
        self.loader = DataLoader(self.dataset, batch_size=lc["batch_size"], shuffle=lc["shuffle"],
                                 num_workers=lc["num_workers"], drop_last=True, generator=g)
        self.model = TinyPoseNet(len(JOINTS), cfg["model"]["width"])
        oc = cfg["optim"]
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=oc["lr"],
                                           weight_decay=oc["weight_decay"])
        self.criterion = JointsMSELoss()
        self.meter = Meter()
        self.history = {"epoch_loss": [], "epoch_pck": []}

    @staticmethod
    def _pck(output, joints, weight, stride, thr=2.0):
        b, k, h, w = output.shape
        flat = output.detach().reshape(b, k, -1).argmax(-1)
        px = (flat % w).float() * stride
        py = torch.div(flat, w, rounding_mode="floor").float() * stride
        dist = torch.sqrt((px - joints[..., 0]) ** 2 + (py - joints[..., 1]) ** 2)
        hit = ((dist <= thr * stride).float() * weight).sum()
        return float(hit / weight.sum().clamp(min=1.0))

    def train_epoch(self, epoch):
        self.model.train()
        total, pck, n = 0.0, 0.0, 0
        for i, batch in enumerate(self.loader):
            self.meter.batch(batch)
            out = self.model(batch["image"])
            loss = self.criterion(out, batch["heatmaps"], batch["target_weight"])
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            self.meter.step(loss)
            total += loss.item()
            pck += self._pck(out, batch["joints"], batch["target_weight"], self.dataset.stride)
            n += 1
            if i % self.cfg["trainer"]["log_every"] == 0:
                print(f"epoch {epoch} it {i} loss {loss.item():.6f}")
            if self.meter.done():
                break
        self.history["epoch_loss"].append(total / max(n, 1))
        self.history["epoch_pck"].append(pck / max(n, 1))

    def fit(self):
        for epoch in range(self.cfg["trainer"]["epochs"]):
            self.train_epoch(epoch)
            if self.meter.done():
                break
        self.meter.report(extra=self.history)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/pose.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    PoseTrainer(cfg).fit()


if __name__ == "__main__":
    main()
