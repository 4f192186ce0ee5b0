"""Train a small 1-D CNN event classifier (noise / local / regional) on gained 3C traces + STA/LTA."""
import argparse
import random

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader

import evalkit
from seis import AGC, Compose, RandomPolarityFlip, RandomTimeShift, STALTA, SyntheticEventDataset, ToTensor
from seis.data import CLASSES, collate_traces


class EventNet(nn.Module):
    def __init__(self, in_ch=4, n_classes=len(CLASSES)):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(in_ch, 16, 9, stride=4, padding=4), nn.ReLU(),
            nn.Conv1d(16, 24, 9, stride=4, padding=4), nn.ReLU(),
            nn.Conv1d(24, 32, 9, stride=4, padding=4), nn.ReLU(),
            nn.AdaptiveMaxPool1d(1),
        )
        self.head = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="agc.yaml")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = yaml.safe_load(fh)

    torch.set_num_threads(1)
    seed_everything(cfg["seed"])
    aug_gen = torch.Generator().manual_seed(cfg["seed"] + 1)
    tcfg = cfg["transforms"]
    transform = Compose([
        RandomTimeShift(tcfg["max_shift"], aug_gen),
        AGC(tcfg["agc_window"]),
        STALTA(tcfg["sta"], tcfg["lta"], component=0),
        RandomPolarityFlip(tcfg["polarity_p"], aug_gen),
        ToTensor(),
    ])
    dcfg = cfg["data"]
    dataset = SyntheticEventDataset(dcfg["n_traces"], dcfg["n_samples"], dcfg["sampling_rate"],
                                    seed=cfg["seed"], transform=transform)
    lcfg = cfg["loader"]
    loader = DataLoader(dataset, batch_size=lcfg["batch_size"], shuffle=lcfg["shuffle"],
                        num_workers=lcfg["num_workers"], drop_last=lcfg["drop_last"],
                        collate_fn=collate_traces, generator=torch.Generator().manual_seed(cfg["seed"]))

    model = EventNet()
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["train"]["lr"], weight_decay=cfg["train"]["weight_decay"])
    loss_fn = nn.CrossEntropyLoss()
    meter = evalkit.Meter()
    correct = seen = 0
    for epoch in range(cfg["train"]["epochs"]):
        model.train()
        for x, y in loader:
            meter.batch((x, y))
            logits = model(x)
            loss = loss_fn(logits, y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            meter.step(loss)
            correct += int((logits.argmax(1) == y).sum())
            seen += len(y)
            if meter.done():
                break
        print(f"epoch {epoch}: loss {loss.item():.4f} running acc {correct / max(seen, 1):.3f}")
        if meter.done():
            break
    meter.report(extra={"train_acc": round(correct / max(seen, 1), 6), "seen": seen})


if __name__ == "__main__":
    main()
