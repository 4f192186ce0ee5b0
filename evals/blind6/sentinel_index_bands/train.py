import argparse

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

import evalkit
from eo.data import S2Patches, make_patches
from eo.transforms import AppendSpectralIndices, Compose, RandomFlipRot


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        ds_cfg = cfg["dataset"]
        patches, labels = make_patches(ds_cfg["num_patches"], ds_cfg["patch_size"], ds_cfg["classes"], cfg["seed"])
        transform = Compose([RandomFlipRot(np.random.default_rng(cfg["seed"] + 1)), AppendSpectralIndices()])
        self.train_ds = S2Patches(patches, labels, transform)
        lc = cfg["loader"]
        self.loader = DataLoader(self.train_ds, batch_size=lc["batch_size"], shuffle=lc["shuffle"],
                                 num_workers=lc["num_workers"], drop_last=lc["drop_last"],
                                 generator=torch.Generator().manual_seed(cfg["seed"]))
        n_cls = len(ds_cfg["classes"])
        self.model = nn.Sequential(
            nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
            nn.Flatten(), nn.Linear(16, n_cls))
        oc = cfg["optimizer"]
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=oc["lr"], weight_decay=oc["weight_decay"])
        self.criterion = nn.CrossEntropyLoss()
        self.meter = evalkit.Meter()
        self.history = {"loss": [], "acc": []}

    def train_epoch(self, epoch):
        self.model.train()
        tot_loss, tot_correct, tot_n = 0.0, 0, 0
        for step, batch in enumerate(self.loader):
            self.meter.batch(batch)
            images, labels = batch["image"], batch["label"]
            logits = self.model(images)
            loss = self.criterion(logits, labels)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.meter.step(loss)
            tot_loss += loss.item() * labels.size(0)
            tot_correct += (logits.argmax(1) == labels).sum().item()
            tot_n += labels.size(0)
            if (step + 1) % self.cfg["trainer"]["log_every"] == 0:
                print(f"epoch {epoch} it {step + 1} loss {tot_loss / tot_n:.4f} acc {tot_correct / tot_n:.3f}",
                      flush=True)
            if self.meter.done():
                break
        self.history["loss"].append(round(tot_loss / max(tot_n, 1), 6))
        self.history["acc"].append(round(tot_correct / max(tot_n, 1), 6))

    def fit(self):
        for epoch in range(self.cfg["trainer"]["epochs"]):
            self.train_epoch(epoch)
            if self.meter.done():
                break
        self.meter.report(extra=self.history)


def main():
    parser = argparse.ArgumentParser(description="Land-cover classification on S2 patches")
    parser.add_argument("--config", default="configs/landcover.yaml")
    args = parser.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)
    Trainer(cfg).fit()


if __name__ == "__main__":
    main()
