"""Classify where a sensor node is installed (indoor / outdoor / cold storage) from uplink windows."""
import argparse
import base64
import configparser
import json
import math
import random
from dataclasses import dataclass
from datetime import datetime, timezone

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, Sampler

import evalkit
from calib import SENSORS, CalibrationStore, CalRecord, calibrate
from packets import RX_FORMAT, encode_payload, parse_uplink

ENVIRONMENTS = ["indoor", "outdoor", "cold_storage"]
N_FEATURES = 10  # temp, rh, hPa, ax, ay, az, battery, latency, dt, lost


def simulate_fleet(cfg, rng):
    """Network-server JSON lines per device, the calibration tables and the device labels."""
    n_dev, n_pk, period = cfg.getint("devices"), cfg.getint("packets_per_device"), cfg.getint("period_s")
    t0 = 1_700_000_000
    streams, tables, labels = [], {}, []
    for dev in range(n_dev):
        env = dev % len(ENVIRONMENTS)
        labels.append(env)
        ota_at = int(rng.integers(n_pk // 4, 3 * n_pk // 4))
        ts = t0 + int(rng.integers(0, 3600))
        seq = int(rng.integers(0, 1000))
        pressure = 101325.0 + rng.normal(0, 400)
        battery = rng.uniform(3300, 3600)
        lines = []
        for k in range(n_pk):
            ts += period + int(rng.integers(-3, 4))
            seq += 2 if rng.random() < cfg.getfloat("lost_prob") else 1
            hour = (ts % 86400) / 3600.0
            if env == 0:
                temp = 21.0 + 1.5 * math.sin(2 * math.pi * (hour - 9) / 24) + rng.normal(0, 0.2)
                rh = 40.0 + rng.normal(0, 2)
            elif env == 1:
                temp = 9.0 + 7.0 * math.sin(2 * math.pi * (hour - 9) / 24) + rng.normal(0, 0.6)
                rh = 70.0 - 1.5 * (temp - 9.0) + rng.normal(0, 4)
            else:
                temp = 3.5 + rng.normal(0, 0.3) + (6.0 if rng.random() < 0.04 else 0.0)
                rh = 85.0 + rng.normal(0, 3)
            pressure += rng.normal(0, 8)
            battery -= rng.uniform(0.0, 0.2)
            version = 1 if k < ota_at else 2
            t_raw = int(round((temp * 9 / 5 + 32) * 10)) if version == 1 else int(round(temp * 100))
            accel = [int(v) for v in rng.normal([0, 0, 1000], [15, 15, 15]).round()]
            fields = [(1, (t_raw,)), (2, (int(min(max(rh, 0), 100) * 100),)), (3, (int(pressure),)),
                      (4, tuple(accel)), (5, (int(battery),))]
            if rng.random() < 0.05:           # low-power frames skip the accelerometer
                fields = [f for f in fields if f[0] != 4]
            frame = bytearray(encode_payload(version, dev, seq % 2**32, ts, fields))
            if rng.random() < cfg.getfloat("corrupt_prob"):
                pos = int(rng.integers(0, len(frame)))
                frame[pos] ^= 1 << int(rng.integers(0, 8))
            rx = datetime.fromtimestamp(ts + rng.uniform(0.2, 3.0), tz=timezone.utc)
            lines.append(json.dumps({
                "devEUI": f"70b3d57ed005{dev:04x}", "fPort": 2,
                "rxInfo": {"time": rx.strftime(RX_FORMAT), "rssi": int(rng.integers(-120, -60))},
                "data": base64.b64encode(bytes(frame)).decode("ascii"),
            }))
        streams.append(lines)
        # calibration campaigns every calib_interval_days; some certificates re-issued at the same time
        tables[dev] = {}
        t_first = t0 - 86400
        t_last = ts
        step = cfg.getfloat("calib_interval_days") * 86400
        for name in SENSORS:
            recs = []
            t = t_first
            while t < t_last:
                recs.append(CalRecord(int(t), float(rng.normal(1.0, 0.02)), float(rng.normal(0.0, 0.3))))
                if rng.random() < 0.2:
                    recs.append(CalRecord(int(t), float(rng.normal(1.0, 0.02)), float(rng.normal(0.0, 0.3))))
                t += step * rng.uniform(0.5, 1.5)
            tables[dev][name] = recs
    return streams, CalibrationStore(tables), labels


@dataclass
class TelemetryBatch:
    features: torch.Tensor   # (B, T, F) float32
    mask: torch.Tensor       # (B, T, F) bool, False where missing or dropped
    device: torch.Tensor     # (B,)
    label: torch.Tensor      # (B,)


class UplinkWindows(Dataset):
    """Window i = the first `length` valid uplinks of a device from raw stream position `start`."""

    def __init__(self, streams, store, labels, length, stride, dropout, seed):
        self.streams = streams
        self.store = store
        self.labels = labels
        self.length = length
        self.dropout = dropout
        self.rng = np.random.default_rng(seed)
        self.index = [(dev, start) for dev, lines in enumerate(streams)
                      for start in range(0, len(lines) - 2 * length, stride)]
        self.by_device = {}
        for i, (dev, _) in enumerate(self.index):
            self.by_device.setdefault(dev, []).append(i)

    def __len__(self):
        return len(self.index)

    def _rows(self, dev, start):
        rows, prev = [], None
        pos = start
        lines = self.streams[dev]
        while len(rows) < self.length and pos < len(lines):
            packet = parse_uplink(lines[pos])
            pos += 1
            if packet is None:
                continue
            values = calibrate(self.store, packet)
            latency = packet["rx"] - packet["ts"]
            if prev is None:
                dt, lost = 0.0, 0.0
            else:
                dt, lost = float(packet["ts"] - prev["ts"]), float(packet["seq"] - prev["seq"] - 1)
            rows.append(values + [latency, dt, lost])
            prev = packet
        while len(rows) < self.length:
            rows.append(list(rows[-1]))
        return rows

    def __getitem__(self, i):
        dev, start = self.index[i]
        feats = np.array(self._rows(dev, start), dtype=np.float64)
        mask = ~np.isnan(feats)
        drop = self.rng.random(size=(self.length, len(SENSORS))) < self.dropout
        cols = np.repeat(drop, [1, 1, 1, 3, 1], axis=1)
        mask[:, :7] &= ~cols
        feats = np.where(mask, feats, 0.0)
        return feats.astype(np.float32), mask, dev, self.labels[dev]


class DeviceBatchSampler(Sampler):
    """Each batch: `devices_per_batch` random devices x `windows_per_device` random windows of each."""

    def __init__(self, by_device, devices_per_batch, windows_per_device, batches, generator):
        self.by_device = by_device
        self.devices = sorted(by_device)
        self.dpb = devices_per_batch
        self.wpd = windows_per_device
        self.batches = batches
        self.generator = generator

    def __len__(self):
        return self.batches

    def __iter__(self):
        for _ in range(self.batches):
            devs = torch.randperm(len(self.devices), generator=self.generator)[: self.dpb].tolist()
            batch = []
            for d in devs:
                pool = self.by_device[self.devices[d]]
                picks = torch.randint(len(pool), (self.wpd,), generator=self.generator).tolist()
                batch.extend(pool[p] for p in picks)
            yield batch


def collate(items):
    feats, masks, devs, labels = zip(*items)
    return TelemetryBatch(torch.from_numpy(np.stack(feats)), torch.from_numpy(np.stack(masks)),
                          torch.tensor(devs), torch.tensor(labels))


class TelemetryGRU(nn.Module):
    def __init__(self, hidden, n_classes):
        super().__init__()
        self.norm = nn.LayerNorm(2 * N_FEATURES)
        self.gru = nn.GRU(2 * N_FEATURES, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, feats, mask):
        x = self.norm(torch.cat([feats, mask.float()], dim=-1))
        _, h = self.gru(x)
        return self.head(h[-1])


class PrintLogger:
    def __init__(self, every):
        self.every = every

    def on_step_end(self, step, epoch, loss, logits, batch):
        if step % self.every == 0:
            acc = (logits.argmax(1) == batch.label).float().mean().item()
            print(f"epoch {epoch} step {step} loss {loss.item():.4f} acc {acc:.3f}")


class AccuracyTracker:
    def __init__(self):
        self.correct = 0
        self.seen = 0

    def on_step_end(self, step, epoch, loss, logits, batch):
        self.correct += int((logits.argmax(1) == batch.label).sum())
        self.seen += len(batch.label)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="telemetry.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    seed = cfg.getint("run", "seed")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    streams, store, labels = simulate_fleet(cfg["fleet"], np.random.default_rng(seed))
    w = cfg["windows"]
    dataset = UplinkWindows(streams, store, labels, w.getint("length"), w.getint("stride"),
                            w.getfloat("sensor_dropout"), seed + 1)
    lc = cfg["loader"]
    sampler = DeviceBatchSampler(dataset.by_device, lc.getint("devices_per_batch"), lc.getint("windows_per_device"),
                                 lc.getint("batches_per_epoch"), torch.Generator().manual_seed(seed))
    loader = DataLoader(dataset, batch_sampler=sampler, num_workers=lc.getint("num_workers"), collate_fn=collate)
    model = TelemetryGRU(cfg.getint("optim", "hidden"), len(ENVIRONMENTS))
    opt = torch.optim.Adam(model.parameters(), lr=cfg.getfloat("optim", "lr"))
    tracker = AccuracyTracker()
    callbacks = [PrintLogger(cfg.getint("run", "log_every")), tracker]
    meter = evalkit.Meter()
    step = 0
    for epoch in range(cfg.getint("run", "epochs")):
        for batch in loader:
            meter.batch(vars(batch))
            logits = model(batch.features, batch.mask)
            loss = nn.functional.cross_entropy(logits, batch.label)
            opt.zero_grad()
            loss.backward()
            opt.step()
            meter.step(loss)
            step += 1
            for cb in callbacks:
                cb.on_step_end(step, epoch, loss, logits, batch)
            if meter.done():
                break
        if meter.done():
            break
    meter.report(extra={"correct": tracker.correct, "seen": tracker.seen})


if __name__ == "__main__":
    main()
