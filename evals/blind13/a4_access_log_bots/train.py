"""Bot-traffic detector over a web server's access log.

    python train.py --settings settings.ini
"""
import argparse
import configparser
import itertools
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, RandomSampler

import evalkit
from access_log import METHODS, UA_CLASSES, simulate_log
from dataset import NUMERIC, AccessLogDataset, collate_requests


class RequestClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.agent = nn.Embedding(len(UA_CLASSES), 8)
        self.method = nn.Embedding(len(METHODS), 4)
        self.status = nn.Embedding(6, 4)
        self.norm = nn.BatchNorm1d(len(NUMERIC))
        self.mlp = nn.Sequential(nn.Linear(len(NUMERIC) + 16, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, b):
        x = torch.cat([self.norm(b.numeric), self.agent(b.agent), self.method(b.method), self.status(b.status)], 1)
        return self.mlp(x).squeeze(1)


def train_one_epoch(model, loader, opt, meter, state, max_steps, log_every):
    for batch in loader:
        meter.batch(batch.as_dict())
        logits = model(batch)
        loss = F.binary_cross_entropy_with_logits(logits, batch.label)
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        state["step"] += 1
        state["hits"] += int(((logits > 0).float() == batch.label).sum())
        state["seen"] += len(batch.label)
        if state["step"] % log_every == 0:
            print(f"step {state['step']} loss {loss.item():.4f} acc {state['hits'] / state['seen']:.3f}")
        if state["step"] >= max_steps or meter.done():
            return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.settings)
    seed = cfg.getint("general", "seed")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    lg = cfg["log"]
    lines, truth = simulate_log(lg.getint("num_lines"), lg.getint("num_humans"), lg.getint("num_bots"),
                                lg.getfloat("span_hours"), lg.getfloat("max_disorder_s"), seed)
    dataset = AccessLogDataset(lines, truth, cfg.getfloat("features", "window_s"),
                               cfg.getfloat("features", "lookback_s"))
    ld = cfg["loader"]
    loader = DataLoader(dataset, batch_size=ld.getint("batch_size"), collate_fn=collate_requests,
                        sampler=RandomSampler(dataset, generator=torch.Generator().manual_seed(seed)),
                        num_workers=ld.getint("num_workers"), drop_last=ld.getboolean("drop_last"))
    model = RequestClassifier()
    tr = cfg["train"]
    opt = torch.optim.Adam(model.parameters(), lr=tr.getfloat("lr"))
    meter = evalkit.Meter()
    state = {"step": 0, "hits": 0, "seen": 0}
    for epoch in itertools.count():
        if not train_one_epoch(model, loader, opt, meter, state, tr.getint("max_steps"), tr.getint("log_every")):
            break
    meter.report(extra={"train_acc": state["hits"] / max(state["seen"], 1), "epochs": epoch + 1})


if __name__ == "__main__":
    main()
