import argparse
import configparser

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

import evalkit
from har.augment import Compose, Jitter, Scaling, Standardize, TimeMask
from har.data import IMUWindows
from har.simulate import ACTIVITIES, simulate


def build_model(channels, n_classes):
    return nn.Sequential(
        nn.Conv1d(channels, 32, 7, stride=2, padding=3), nn.BatchNorm1d(32), nn.ReLU(),
        nn.Conv1d(32, 48, 5, stride=2, padding=2), nn.ReLU(),
        nn.Conv1d(48, 48, 3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool1d(1), nn.Flatten(),
        nn.Linear(48, n_classes),
    )


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        seed = cfg.getint("experiment", "seed")
        torch.manual_seed(seed)
        torch.set_num_threads(1)
        d = cfg["data"]
        x, y = simulate(d.getint("windows"), d.getint("window_len"), d.getint("sampling_hz"), seed)
        mean = x.astype("float64").mean(axis=(0, 2))
        std = x.astype("float64").std(axis=(0, 2))
        a = cfg["augment"]
        transform = Compose([
            Standardize(mean.tolist(), std.tolist()),
            Scaling(a.getfloat("scale_sigma")),
            Jitter(a.getfloat("jitter_sigma")),
            TimeMask(a.getfloat("time_mask_p")),
        ])
        self.dataset = IMUWindows(x, y, transform, seed)
        ld = cfg["loader"]
        self.loader = DataLoader(self.dataset, batch_size=ld.getint("batch_size"),
                                 shuffle=ld.getboolean("shuffle"), num_workers=ld.getint("num_workers"),
                                 generator=torch.Generator().manual_seed(seed), drop_last=True)
        self.model = build_model(d.getint("channels"), len(ACTIVITIES))
        o = cfg["optim"]
        self.opt = torch.optim.SGD(self.model.parameters(), lr=o.getfloat("lr"),
                                   momentum=o.getfloat("momentum"), nesterov=True)
        self.criterion = nn.CrossEntropyLoss(label_smoothing=0.05)
        self.meter = evalkit.Meter()

    def train_epoch(self, epoch):
        self.model.train()
        hits = total = 0
        for batch in self.loader:
            self.meter.batch(batch)
            out = self.model(batch["signal"])
            loss = self.criterion(out, batch["activity"])
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.meter.step(loss)
            hits += (out.argmax(1) == batch["activity"]).sum().item()
            total += batch["activity"].shape[0]
            if self.meter.done():
                break
        return hits / total

    def fit(self):
        accs = []
        for epoch in range(self.cfg.getint("experiment", "epochs")):
            accs.append(self.train_epoch(epoch))
            print(f"epoch {epoch} train acc {accs[-1]:.3f}")
            if self.meter.done():
                break
        self.meter.report(extra={"train_acc": accs})


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="har.ini")
    cfg = configparser.ConfigParser()
    cfg.read(ap.parse_args().config)
    Trainer(cfg).fit()
