import argparse
import tomllib

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, RandomSampler

import evalkit
from data import COMMANDS, MuLawCommands, synth_corpus
from frontend import LogMel


def build_model(n_mels, channels, n_classes):
    return nn.Sequential(
        nn.Conv1d(n_mels, channels, kernel_size=5, padding=2),
        nn.BatchNorm1d(channels),
        nn.ReLU(),
        nn.Conv1d(channels, channels, kernel_size=5, padding=2, stride=2),
        nn.BatchNorm1d(channels),
        nn.ReLU(),
        nn.AdaptiveAvgPool1d(1),
        nn.Flatten(),
        nn.Linear(channels, n_classes),
    )


def run(cfg):
    torch.manual_seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.set_num_threads(1)

    a = cfg["audio"]
    payloads, labels = synth_corpus(cfg["data"]["n_clips"], a["sample_rate"], a["duration"], cfg["seed"])
    frontend = LogMel(a["sample_rate"], a["n_fft"], a["win_length"], a["hop_length"], a["n_mels"])
    ds = MuLawCommands(payloads, labels, frontend)
    sampler = RandomSampler(ds, generator=torch.Generator().manual_seed(cfg["seed"]))
    dl = DataLoader(ds, batch_size=cfg["data"]["batch_size"], sampler=sampler,
                    num_workers=cfg["data"]["num_workers"], drop_last=True)

    model = build_model(a["n_mels"], cfg["model"]["channels"], len(COMMANDS))
    opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
    crit = nn.CrossEntropyLoss()
    meter = evalkit.Meter()

    confusion = torch.zeros(len(COMMANDS), len(COMMANDS), dtype=torch.long)
    step = 0
    stop = False
    for epoch in range(cfg["optim"]["epochs"]):
        for feats, target in dl:
            meter.batch((feats, target))
            logits = model(feats)
            loss = crit(logits, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            pred = logits.argmax(1)
            confusion += torch.bincount(target * len(COMMANDS) + pred, minlength=len(COMMANDS) ** 2).view_as(confusion)
            step += 1
            if step % 20 == 0:
                print(f"[{epoch}:{step}] loss={loss.item():.4f}")
            if meter.done():
                stop = True
                break
        if stop:
            break

    recall = (confusion.diag().double() / confusion.sum(1).clamp(min=1).double()).tolist()
    meter.report(extra={"per_class_recall": dict(zip(COMMANDS, recall)), "confusion": confusion.tolist()})


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--config", required=True)
    with open(p.parse_args().config, "rb") as fh:
        run(tomllib.load(fh))
