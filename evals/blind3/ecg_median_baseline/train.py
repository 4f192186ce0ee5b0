import argparse

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

import evalkit
from ecg_data import RHYTHMS, ECGWindows
from net import RhythmNet
from settings import load_env


def run(cfg):
    torch.manual_seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    ds = ECGWindows(cfg, cfg["seed"])
    gen = torch.Generator().manual_seed(cfg["seed"])
    dl = DataLoader(ds, batch_size=cfg["batch_size"], shuffle=True, generator=gen, drop_last=True)
    model = RhythmNet(cfg["channels"], len(RHYTHMS))
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    criterion = nn.CrossEntropyLoss()
    meter = evalkit.Meter()
    epoch_acc = []
    for epoch in range(cfg["epochs"]):
        correct = seen = 0
        for signals, labels in dl:
            meter.batch((signals, labels))
            logits = model(signals)
            loss = criterion(logits, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.step(loss)
            correct += (logits.argmax(1) == labels).sum().item()
            seen += labels.numel()
            if meter.done():
                break
        epoch_acc.append(round(correct / max(seen, 1), 6))
        print(f"epoch {epoch}: train acc {epoch_acc[-1]:.3f}", flush=True)
        if meter.done():
            break
    meter.report(extra={"train_acc": epoch_acc})


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/ecg.env")
    args = ap.parse_args()
    torch.set_num_threads(1)
    run(load_env(args.config))
