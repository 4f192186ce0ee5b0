"""Vowel recognition from LPC frames with a small GRU."""
import argparse
import configparser
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, RandomSampler

import evalkit
from features import LPC
from vowels import LABELS, VowelDataset, collate_lpc


class LPCClassifier(nn.Module):
    """Frame-wise MLP over the LPC frames, then a length-masked mean over time."""

    def __init__(self, in_dim, hidden, num_classes):
        super().__init__()
        self.norm = nn.LayerNorm(in_dim)
        self.frame = nn.Sequential(nn.Linear(in_dim, hidden), nn.Tanh())
        self.out = nn.Linear(hidden, num_classes)

    def forward(self, x, lengths):
        h = self.frame(self.norm(x))
        mask = (torch.arange(x.shape[1])[None, :] < lengths[:, None]).unsqueeze(-1)
        pooled = (h * mask).sum(1) / lengths.clamp(min=1).unsqueeze(1)
        return self.out(pooled)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="lpc.ini")
    args = ap.parse_args()
    cp = configparser.ConfigParser()
    cp.read(args.config)

    seed = cp.getint("experiment", "seed")
    torch.set_num_threads(1)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    frontend = LPC(frame_length=cp.getint("features", "frame_length"), hop_length=cp.getint("features", "hop_length"),
                   order=cp.getint("features", "order"), preemphasis=cp.getfloat("features", "preemphasis"))
    data = cp["data"]
    dataset = VowelDataset(data.getint("num_utterances"), data.getint("sample_rate"), data.getfloat("clip_seconds"),
                           data.getfloat("crop_seconds"), (data.getfloat("min_gain_db"), data.getfloat("max_gain_db")),
                           seed, frontend)
    sampler = RandomSampler(dataset, generator=torch.Generator().manual_seed(seed)) \
        if cp.getboolean("loader", "shuffle") else None
    loader = DataLoader(dataset, batch_size=cp.getint("loader", "batch_size"), sampler=sampler,
                        num_workers=cp.getint("loader", "num_workers"), collate_fn=collate_lpc, drop_last=True)

    model = LPCClassifier(frontend.order + 1, 32, len(LABELS))
    optimizer = torch.optim.Adam(model.parameters(), lr=cp.getfloat("optim", "lr"))
    max_steps = cp.getint("experiment", "max_steps")
    log_every = cp.getint("experiment", "log_every")
    clip = cp.getfloat("optim", "grad_clip")
    meter = evalkit.Meter()

    step, epoch, running = 0, 0, []
    it = iter(loader)
    while step < max_steps and not meter.done():
        try:
            feats, lengths, labels = batch = next(it)
        except StopIteration:
            epoch += 1
            it = iter(loader)
            continue
        meter.batch(batch)
        loss = nn.functional.cross_entropy(model(feats, lengths), labels)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        meter.step(loss)
        running.append(loss.item())
        step += 1
        if step % log_every == 0:
            print(f"step {step} epoch {epoch} loss {sum(running[-log_every:]) / log_every:.4f}", flush=True)
    meter.report(extra={"epochs": epoch, "last_window_loss": sum(running[-log_every:]) / max(1, len(running[-log_every:]))})


if __name__ == "__main__":
    main()
