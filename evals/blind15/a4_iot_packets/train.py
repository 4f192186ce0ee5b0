"""Environment classifier over windows of calibrated sensor telemetry.

usage: python train.py telemetry.ini
"""
import configparser
import math
import random
import sys
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Sampler

import evalkit
from calib import CalibrationTable, load_calibrations, to_si
from fleet import ENVIRONMENTS, simulate_fleet
from packets import decode_line

NORM_MEAN = (290.0, 0.6, 1011.0, 3.5)
NORM_STD = (15.0, 0.2, 4.0, 0.1)


@dataclass
class TelemetryBatch:
    values: torch.Tensor   # [B, T, 4] normalised SI values
    mask: torch.Tensor     # [B, T] packet valid (CRC ok, not dropped)
    dt: torch.Tensor       # [B, T] minutes since the previous packet
    label: torch.Tensor    # [B]


class PacketWindows(Dataset):
    def __init__(self, lines, env_of, calibrations, length, stride, drop_prob, seed):
        self.lines, self.env_of, self.cal = lines, env_of, calibrations
        self.length, self.drop_prob = length, drop_prob
        self.index = [(dev, start) for dev in sorted(lines)
                      for start in range(0, len(lines[dev]) - length + 1, stride)]
        self.gen = torch.Generator().manual_seed(seed)
        self.crc_failures = 0

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        dev, start = self.index[i]
        drop = (torch.rand(self.length, generator=self.gen) < self.drop_prob).tolist()
        values = np.zeros((self.length, 4), dtype=np.float32)
        mask = np.zeros(self.length, dtype=bool)
        dt = np.zeros(self.length, dtype=np.float32)
        prev_ts = None
        for k, line in enumerate(self.lines[dev][start:start + self.length]):
            reading = decode_line(line)
            if reading is None or not reading.crc_ok:
                self.crc_failures += 1
                continue
            if prev_ts is not None:
                dt[k] = (reading.ts - prev_ts) / 60.0
            prev_ts = reading.ts
            if drop[k]:
                continue
            si = to_si(reading.raw, self.cal.lookup(reading.device_id, reading.ts))
            values[k] = [(v - m) / s for v, m, s in zip(si, NORM_MEAN, NORM_STD)]
            mask[k] = True
        return {"values": values, "mask": mask, "dt": dt, "label": self.env_of[dev]}


class ShuffledBatchSampler(Sampler):
    """Batches of shuffled window indices (a fresh permutation each epoch)."""

    def __init__(self, n, batch_size, drop_last, generator):
        self.n, self.batch_size, self.drop_last, self.generator = n, batch_size, drop_last, generator

    def __iter__(self):
        perm = torch.randperm(self.n, generator=self.generator).tolist()
        for i in range(0, self.n, self.batch_size):
            chunk = perm[i:i + self.batch_size]
            if len(chunk) < self.batch_size and self.drop_last:
                return
            yield chunk

    def __len__(self):
        return self.n // self.batch_size if self.drop_last else math.ceil(self.n / self.batch_size)


def collate(samples):
    return TelemetryBatch(
        values=torch.from_numpy(np.stack([s["values"] for s in samples])),
        mask=torch.from_numpy(np.stack([s["mask"] for s in samples])),
        dt=torch.from_numpy(np.stack([s["dt"] for s in samples])),
        label=torch.tensor([s["label"] for s in samples]))


class GRUClassifier(nn.Module):
    def __init__(self, n_classes, hidden=32):
        super().__init__()
        self.gru = nn.GRU(6, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, b):
        x = torch.cat([b.values, b.mask.float().unsqueeze(-1), (b.dt / 5.0).unsqueeze(-1)], dim=-1)
        out, _ = self.gru(x)
        m = b.mask.float().unsqueeze(-1)
        return self.head((out * m).sum(1) / m.sum(1).clamp_min(1.0))


def main(path):
    cfg = configparser.ConfigParser()
    cfg.read(path)
    seed = cfg.getint("general", "seed")
    torch.set_num_threads(1)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

    fl = cfg["fleet"]
    lines, env_of, csv_text = simulate_fleet(seed, fl.getint("devices"), fl.getint("packets_per_device"),
                                             fl.getint("calibrations_per_device"), fl.getfloat("corrupt_rate"))
    table = CalibrationTable(load_calibrations(csv_text))
    win = cfg["windows"]
    dataset = PacketWindows(lines, env_of, table, win.getint("length"), win.getint("stride"),
                            win.getfloat("drop_prob"), seed + 1)
    ld = cfg["loader"]
    sampler = ShuffledBatchSampler(len(dataset), ld.getint("batch_size"), ld.getboolean("drop_last"),
                                   torch.Generator().manual_seed(seed))
    loader = DataLoader(dataset, batch_sampler=sampler, collate_fn=collate, num_workers=ld.getint("num_workers"))

    model = GRUClassifier(len(ENVIRONMENTS))
    opt = torch.optim.Adam(model.parameters(), lr=cfg.getfloat("train", "lr"))
    meter = evalkit.Meter()
    for epoch in range(cfg.getint("train", "epochs")):
        for batch in loader:
            meter.batch(vars(batch))
            loss = F.cross_entropy(model(batch), batch.label)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"crc_failures": dataset.crc_failures, "windows": len(dataset)})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "telemetry.ini")
