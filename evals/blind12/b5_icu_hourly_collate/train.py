"""In-hospital mortality from charted ICU vitals and labs (MIMIC-style CHARTEVENTS/LABEVENTS rows).

A sample is a random 48-hour window of a stay; the collate bins the irregular events into hourly slots
(hourly mean per variable, standardised), forward-fills the gaps and emits observation masks and the
hours since each variable was last seen (the GRU-D style inputs).
"""
import argparse
import math
import random
import runpy

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, Sampler

import evalkit

# itemid -> (name, mean, sd, charting interval in minutes)
VARIABLES = {
    220045: ("heart_rate", 86.0, 17.0, 60), 220179: ("sbp", 120.0, 21.0, 60), 220180: ("dbp", 62.0, 13.0, 60),
    220181: ("map", 79.0, 14.0, 60), 220210: ("resp_rate", 19.5, 5.5, 60), 220277: ("spo2", 96.8, 2.6, 60),
    223761: ("temp_f", 98.7, 1.2, 240), 50813: ("lactate", 2.1, 1.6, 480), 50912: ("creatinine", 1.4, 1.3, 720),
    50971: ("potassium", 4.1, 0.6, 480), 50983: ("sodium", 138.6, 4.8, 480), 50931: ("glucose", 134.0, 48.0, 360),
    51301: ("wbc", 11.2, 6.0, 720), 51222: ("hemoglobin", 10.4, 1.9, 720), 51265: ("platelets", 212.0, 105.0, 720),
    50882: ("bicarbonate", 24.3, 4.6, 720), 51006: ("bun", 27.0, 21.0, 720),
}
NOISE_ITEMS = (220739, 223900, 223901, 220048)  # GCS components, heart rhythm: not model inputs


def simulate_stays(s, rng):
    stays = []
    for sid in range(s["NUM_STAYS"]):
        died = rng.random() < s["MORTALITY_RATE"]
        hours = int(rng.integers(s["MIN_STAY_HOURS"], s["MAX_STAY_HOURS"] + 1))
        end = hours * 60
        events = []
        for itemid, (_name, mu, sd, every) in VARIABLES.items():
            n = int(end / every * rng.uniform(0.8, 1.4))
            times = np.sort(rng.integers(0, end, size=n))
            drift = np.cumsum(rng.normal(0.0, 0.15, size=n))
            shift = (1.2 if died else 0.0) * rng.choice([-1.0, 1.0])
            values = mu + sd * (0.6 * rng.normal(size=n) + 0.4 * drift + shift * np.linspace(0, 1, n))
            keep = rng.random(n) > 0.12  # missed charting
            events.extend((t, itemid, round(v, 1)) for t, v, k in zip(times.tolist(), values.tolist(), keep.tolist())
                          if k)
        for itemid in NOISE_ITEMS:
            n = int(hours / 4)
            events.extend(zip(rng.integers(0, end, size=n).tolist(), [itemid] * n,
                              rng.integers(1, 6, size=n).astype(float).tolist()))
        stays.append({"stay_id": 30000000 + sid, "events": events, "hours": hours,
                      "age": float(rng.uniform(18, 91)), "female": float(rng.random() < 0.44),
                      "label": float(died)})
    return stays


class ICUStayDataset(Dataset):
    """Returns the stay's raw event rows with a random window start (integer minutes)."""

    def __init__(self, stays, window_hours, seed):
        self.stays = stays
        self.window = window_hours * 60
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.stays)

    def __getitem__(self, idx):
        stay = self.stays[idx]
        start = int(self.rng.integers(0, stay["hours"] * 60 - self.window + 1))
        return {"events": stay["events"], "start": start, "static": [stay["age"] / 100.0, stay["female"]],
                "label": stay["label"]}


class BalancedBatchSampler(Sampler):
    """Each batch holds a fixed number of positive stays; both pools are reshuffled every epoch."""

    def __init__(self, labels, batch_size, positives_per_batch, seed):
        self.pos = [i for i, y in enumerate(labels) if y > 0.5]
        self.neg = [i for i, y in enumerate(labels) if y <= 0.5]
        self.batch_size = batch_size
        self.k = positives_per_batch
        self.rng = random.Random(seed)

    def __len__(self):
        return min(len(self.pos) // self.k, len(self.neg) // (self.batch_size - self.k))

    def __iter__(self):
        pos, neg = self.pos[:], self.neg[:]
        self.rng.shuffle(pos)
        self.rng.shuffle(neg)
        m = self.batch_size - self.k
        for b in range(len(self)):
            batch = pos[b * self.k:(b + 1) * self.k] + neg[b * m:(b + 1) * m]
            self.rng.shuffle(batch)
            yield batch


class HourlyBinningCollator:
    """Bins events into [window_hours, num_vars] slots: hourly mean (standardised), forward fill,
    observation mask and hours since last observation (capped at the window length)."""

    def __init__(self, window_hours):
        self.hours = window_hours
        self.item_index = {itemid: k for k, itemid in enumerate(VARIABLES)}
        self.mean = [v[1] for v in VARIABLES.values()]
        self.sd = [v[2] for v in VARIABLES.values()]

    def bin_stay(self, events, start):
        H, V = self.hours, len(self.item_index)
        stop = start + H * 60
        in_window = sorted((e for e in events if start <= e[0] < stop), key=lambda e: e[0])
        sums = [[0.0] * V for _ in range(H)]
        counts = [[0] * V for _ in range(H)]
        for minute, itemid, value in in_window:
            v = self.item_index.get(itemid)
            if v is None:
                continue
            h = (minute - start) // 60
            sums[h][v] += value
            counts[h][v] += 1
        values = [[0.0] * V for _ in range(H)]
        mask = [[0.0] * V for _ in range(H)]
        delta = [[0.0] * V for _ in range(H)]
        cap = float(H)
        for v in range(V):
            last, since = 0.0, cap
            for h in range(H):
                n = counts[h][v]
                if n:
                    last = (sums[h][v] / n - self.mean[v]) / self.sd[v]
                    since = 0.0
                    mask[h][v] = 1.0
                else:
                    since = min(since + 1.0, cap)
                values[h][v] = last
                delta[h][v] = since / cap
        return values, mask, delta

    def __call__(self, items):
        binned = [self.bin_stay(it["events"], it["start"]) for it in items]
        values = torch.tensor([b[0] for b in binned], dtype=torch.float32)
        mask = torch.tensor([b[1] for b in binned], dtype=torch.float32)
        delta = torch.tensor([b[2] for b in binned], dtype=torch.float32)
        static = torch.tensor([it["static"] for it in items], dtype=torch.float32)
        label = torch.tensor([it["label"] for it in items], dtype=torch.float32)
        return [values, mask, delta, static, label]


class MortalityNet(nn.Module):
    def __init__(self, num_vars, hidden):
        super().__init__()
        self.conv = nn.Conv1d(3 * num_vars, hidden, kernel_size=5, padding=2)
        self.head = nn.Linear(hidden + 2, 1)

    def forward(self, values, mask, delta, static):
        x = torch.cat([values, mask, delta], dim=-1).transpose(1, 2)
        h = F.relu(self.conv(x)).amax(dim=-1)
        return self.head(torch.cat([h, static], dim=-1)).squeeze(-1)


class LossHistory:
    def __init__(self):
        self.epoch_means, self._buf = [], []

    def on_step_end(self, loss):
        self._buf.append(loss.item())

    def on_epoch_end(self, epoch):
        if self._buf:
            self.epoch_means.append(round(sum(self._buf) / len(self._buf), 6))
        self._buf = []


class MeterCallback:
    def __init__(self, meter):
        self.meter = meter

    def on_step_end(self, loss):
        self.meter.step(loss)

    def on_epoch_end(self, epoch):
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--settings", default="settings.py")
    args = ap.parse_args()
    s = runpy.run_path(args.settings)
    torch.set_num_threads(1)
    random.seed(s["SEED"])
    np.random.seed(s["SEED"])
    torch.manual_seed(s["SEED"])

    stays = simulate_stays(s, np.random.default_rng(s["SEED"]))
    dataset = ICUStayDataset(stays, s["WINDOW_HOURS"], seed=s["SEED"] + 1)
    sampler = BalancedBatchSampler([st["label"] for st in stays], s["BATCH_SIZE"], s["POSITIVES_PER_BATCH"],
                                   seed=s["SEED"] + 2)
    loader = DataLoader(dataset, batch_sampler=sampler, num_workers=s["NUM_WORKERS"],
                        collate_fn=HourlyBinningCollator(s["WINDOW_HOURS"]))
    model = MortalityNet(len(VARIABLES), s["HIDDEN"])
    opt = torch.optim.Adam(model.parameters(), lr=s["LR"])
    pos_weight = torch.tensor((1 - s["MORTALITY_RATE"]) / s["MORTALITY_RATE"])
    meter = evalkit.Meter()
    history = LossHistory()
    callbacks = [history, MeterCallback(meter)]
    for epoch in range(s["EPOCHS"]):
        for batch in loader:
            meter.batch(batch)
            values, mask, delta, static, label = batch
            logits = model(values, mask, delta, static)
            loss = F.binary_cross_entropy_with_logits(logits, label, pos_weight=pos_weight)
            opt.zero_grad()
            loss.backward()
            opt.step()
            for cb in callbacks:
                cb.on_step_end(loss)
            if meter.done():
                break
        for cb in callbacks:
            cb.on_epoch_end(epoch)
        if meter.done():
            break
    meter.report({"epoch_loss": history.epoch_means,
                  "prevalence": round(math.fsum(st["label"] for st in stays) / len(stays), 6)})


if __name__ == "__main__":
    main()
