"""Classify vessel types from windows of raw AIS position reports (AIVDM sentences)."""
import argparse
import ast
import math
import random
from collections import namedtuple
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from nmea import decode_sentence
from vessels import VESSEL_TYPES, make_fleet

Sample = namedtuple("Sample", ["track", "vessel_type", "mmsi"])
N_FEATURES = 10


def read_cfg(path):
    cfg = {}
    with open(path) as fh:
        for raw in fh:
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            key, value = (s.strip() for s in line.split("=", 1))
            cfg[key] = ast.literal_eval(value)
    return SimpleNamespace(**cfg)


def window_features(msgs):
    """Per-message kinematics relative to the first report of the window."""
    lat0, lon0 = msgs[0]["lat"], msgs[0]["lon"]
    kx = 111.32 * math.cos(math.radians(lat0))
    rows = []
    for m in msgs:
        has_cog = m["cog"] < 360.0
        c = math.radians(m["cog"]) if has_cog else 0.0
        has_hdg = m["heading"] != 511
        drift = math.radians(m["heading"] - m["cog"]) if has_hdg and has_cog else 0.0
        rows.append([
            (m["lat"] - lat0) * 111.32,
            (m["lon"] - lon0) * kx,
            m["sog"] / 20.0,
            math.sin(c) if has_cog else 0.0,
            math.cos(c) if has_cog else 0.0,
            1.0 if has_hdg else 0.0,
            math.sin(drift),
            m["rot"] / 128.0,
            1.0 if m["status"] == 7 else 0.0,
            1.0 if m["status"] == 15 else 0.0,
        ])
    return rows


class AISWindows(Dataset):
    def __init__(self, tracks, labels, window, per_vessel, seed):
        self.tracks = tracks
        self.labels = labels
        self.window = window
        self.per_vessel = per_vessel
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.tracks) * self.per_vessel

    def __getitem__(self, i):
        v = i % len(self.tracks)
        track = self.tracks[v]
        start = self.rng.randrange(len(track) - self.window + 1)
        msgs = [decode_sentence(s) for s in track[start:start + self.window]]
        x = torch.tensor(window_features(msgs), dtype=torch.float32).t()
        return Sample(x, self.labels[v], msgs[0]["mmsi"])


class TrackTCN(nn.Module):
    def __init__(self, channels, kernel, n_classes):
        super().__init__()
        self.c1 = nn.Conv1d(N_FEATURES, channels, kernel, padding=kernel // 2)
        self.c2 = nn.Conv1d(channels, channels, kernel, padding=2 * (kernel // 2), dilation=2)
        self.c3 = nn.Conv1d(channels, channels, kernel, padding=4 * (kernel // 2), dilation=4)
        self.fc = nn.Linear(2 * channels, n_classes)

    def forward(self, x):
        h = F.relu(self.c1(x))
        h = F.relu(self.c2(h)) + h
        h = F.relu(self.c3(h)) + h
        return self.fc(torch.cat([h.mean(-1), h.amax(-1)], dim=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cfg", default="ais.cfg")
    cfg = read_cfg(ap.parse_args().cfg)

    torch.set_num_threads(1)
    torch.manual_seed(cfg.seed)
    tracks, labels = make_fleet(cfg.vessels, cfg.messages_per_vessel, cfg.seed)
    ds = AISWindows(tracks, labels, cfg.window, cfg.windows_per_vessel, cfg.seed + 1)
    dl = DataLoader(ds, batch_size=cfg.batch_size, shuffle=True, num_workers=0,
                    generator=torch.Generator().manual_seed(cfg.seed))

    net = TrackTCN(cfg.channels, cfg.kernel, len(VESSEL_TYPES))
    opt = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    meter = Meter()

    global_step = 0
    log = []
    for epoch in range(cfg.epochs):
        net.train()
        ok = n = 0
        for batch in dl:
            meter.batch(batch)
            logits = net(batch.track)
            loss = F.cross_entropy(logits, batch.vessel_type)
            opt.zero_grad()
            loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.clip_norm)
            opt.step()
            global_step += 1
            ok += int((logits.argmax(1) == batch.vessel_type).sum())
            n += batch.vessel_type.numel()
            if global_step % cfg.print_every == 0:
                print(f"ep {epoch} step {global_step} loss {loss.item():.4f} |g| {float(gnorm):.3f}")
            meter.step(loss)
            if meter.done():
                break
        log.append({"epoch": epoch, "train_acc": ok / n})
        if meter.done():
            break

    meter.report(extra={"log": log, "steps": global_step})


if __name__ == "__main__":
    main()
