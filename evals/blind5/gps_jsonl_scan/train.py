"""Transport-mode classification from GPS tracks (GeoLife-style JSON lines export)."""
import argparse
import json
import math
import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

from evalkit import Meter
from make_tracks import MODES, write_tracks

EARTH_RADIUS_M = 6_371_000.0


def haversine_m(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dphi = p2 - p1
    dlmb = math.radians(lon2 - lon1)
    a = math.sin(dphi / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dlmb / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(math.sqrt(a))


def bearing(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dl = math.radians(lon2 - lon1)
    return math.atan2(math.sin(dl) * math.cos(p2), math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl))


def segment_features(points):
    """Per segment: log distance, dt, speed, acceleration, turn angle."""
    feats = []
    prev_speed, prev_bearing = 0.0, None
    for (la1, lo1, t1), (la2, lo2, t2) in zip(points[:-1], points[1:]):
        d = haversine_m(la1, lo1, la2, lo2)
        dt = max(t2 - t1, 1)
        speed = d / dt
        b = bearing(la1, lo1, la2, lo2)
        turn = 0.0 if prev_bearing is None else math.atan2(math.sin(b - prev_bearing), math.cos(b - prev_bearing))
        feats.append([math.log1p(d), float(dt), speed / 10.0, (speed - prev_speed) / dt, turn])
        prev_speed, prev_bearing = speed, b
    return feats


class TrackLines(Dataset):
    """Reads track `rows[idx]` (a line number) from the JSON lines file on demand."""

    def __init__(self, path, rows, seq_len, seed):
        self.path = path
        self.rows = rows
        self.seq_len = seq_len
        self.gen = torch.Generator()
        self.gen.manual_seed(seed)

    def __len__(self):
        return len(self.rows)

    def _read_record(self, lineno):
        with open(self.path, "r", encoding="utf-8") as fh:
            for i, line in enumerate(fh):
                if i == lineno:
                    return json.loads(line)
        raise IndexError(lineno)

    def __getitem__(self, idx):
        rec = self._read_record(self.rows[idx])
        feats = segment_features(rec["points"])
        n = len(feats)
        start = int(torch.randint(0, max(1, n - self.seq_len + 1), (1,), generator=self.gen))
        window = feats[start:start + self.seq_len]
        valid = len(window)
        window = window + [[0.0] * 5] * (self.seq_len - valid)
        return {
            "feats": torch.tensor(window, dtype=torch.float32),
            "mask": torch.arange(self.seq_len) < valid,
            "mode": MODES.index(rec["mode"]),
        }


class ModeCNN(nn.Module):
    def __init__(self, channels, n_classes):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(5, channels, 5, padding=2), nn.ReLU(),
            nn.Conv1d(channels, channels, 5, padding=2), nn.ReLU())
        self.head = nn.Linear(2 * channels, n_classes)

    def forward(self, feats, mask):
        h = self.conv(feats.transpose(1, 2))
        m = mask.unsqueeze(1).float()
        mean = (h * m).sum(-1) / m.sum(-1).clamp(min=1.0)
        mx = h.masked_fill(m == 0, -1e4).amax(-1)
        return self.head(torch.cat([mean, mx], dim=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="gps.json")
    args = ap.parse_args()
    with open(args.config) as fh:
        cfg = json.load(fh)
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    dc = cfg["data"]
    if not os.path.exists(dc["path"]):
        write_tracks(dc["path"], dc["num_tracks"], cfg["seed"])
    rows = [i for i in range(dc["num_tracks"]) if i % dc["holdout_every"] != 0]
    train_set = TrackLines(dc["path"], rows, dc["seq_len"], cfg["seed"] + 1)
    g = torch.Generator()
    g.manual_seed(cfg["seed"])
    lc = cfg["loader"]
    loader = DataLoader(train_set, batch_size=lc["batch_size"], shuffle=lc["shuffle"], drop_last=True,
                        num_workers=lc["num_workers"], generator=g)

    model = ModeCNN(cfg["model"]["channels"], len(MODES))
    tc = cfg["train"]
    opt = torch.optim.Adam(model.parameters(), lr=tc["lr"])
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=tc["epochs"] * len(loader))
    loss_fn = nn.CrossEntropyLoss()
    meter = Meter()
    history = []
    for epoch in range(tc["epochs"]):
        model.train()
        tot, hits, cnt = 0.0, 0, 0
        for it, batch in enumerate(loader):
            meter.batch(batch)
            logits = model(batch["feats"], batch["mask"])
            loss = loss_fn(logits, batch["mode"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            meter.step(loss)
            tot += loss.item()
            hits += int((logits.argmax(-1) == batch["mode"]).sum())
            cnt += batch["mode"].numel()
            if it % tc["print_every"] == 0:
                print(f"[{epoch}:{it}] loss={loss.item():.4f}")
            if meter.done():
                break
        history.append({"epoch": epoch, "loss": tot / (it + 1), "acc": hits / cnt})
        print(history[-1])
        if meter.done():
            break
    meter.report(extra={"history": history})


if __name__ == "__main__":
    main()
