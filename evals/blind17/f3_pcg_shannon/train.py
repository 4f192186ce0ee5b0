"""Phonocardiogram (PCG) classifier: normal / systolic murmur / S3 gallop.

Heart-sound segmentation in the classic style: normalised Shannon energy averaged over
short Hann-weighted frames, peak picking with a refractory distance, S1/S2 assignment from
the alternation of short (systole) and long (diastole) intervals, and per-cycle interval
features. A small 1-D CNN reads the envelope plus the cycle features.
"""
import argparse
import bisect
import configparser
import math
import random
import statistics
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset

import evalkit

CLASSES = ("normal", "murmur", "s3")
PCGBatch = namedtuple("PCGBatch", ["envelope", "cycle_features", "label"])
N_CYCLE_FEATURES = 10


# ----------------------------------------------------------------------------- recordings
def synth_recording(rng, fs, seconds, label):
    n = int(fs * seconds)
    t = np.arange(n) / fs
    x = np.zeros(n)
    hr = rng.uniform(55, 110)
    period = 60.0 / hr
    systole = 0.30 * period + rng.uniform(-0.02, 0.02)
    onset = rng.uniform(0, period)
    while onset < seconds - 0.05:
        jitter = rng.normal(0, 0.015)
        for when, dur, freq, amp in ((onset, 0.10, rng.uniform(35, 55), 1.0),
                                     (onset + systole, 0.08, rng.uniform(55, 90), rng.uniform(0.5, 0.8))):
            sl = (t >= when + jitter) & (t < when + jitter + dur)
            tt = t[sl] - when - jitter
            x[sl] += amp * np.sin(2 * np.pi * freq * tt) * np.sin(np.pi * tt / dur) ** 2
        if label == 1:  # holosystolic murmur
            sl = (t >= onset + 0.11) & (t < onset + systole - 0.01)
            x[sl] += rng.uniform(0.12, 0.25) * rng.normal(0, 1, sl.sum())
        elif label == 2:  # S3, ~140 ms after S2
            when = onset + systole + 0.14
            sl = (t >= when) & (t < when + 0.06)
            tt = t[sl] - when
            x[sl] += rng.uniform(0.3, 0.5) * np.sin(2 * np.pi * 30 * tt) * np.sin(np.pi * tt / 0.06) ** 2
        onset += period * (1 + rng.normal(0, 0.03))
    x += 0.05 * np.sin(2 * np.pi * rng.uniform(0.2, 0.4) * t)  # breathing / contact wander
    x += rng.normal(0, 0.01, n)
    pcm = np.clip(np.round(x / np.abs(x).max() * 20000), -32768, 32767).astype("<i2")
    return pcm.tobytes()  # as it comes out of the stethoscope's WAV data chunk


# ----------------------------------------------------------------------------- features
class ShannonEnvelope:
    """Average Shannon energy of the peak-normalised signal over Hann-weighted frames,
    then z-scored over the window."""

    def __init__(self, fs, frame_ms, hop_ms):
        self.frame = int(fs * frame_ms / 1000)
        self.hop = int(fs * hop_ms / 1000)
        w = [0.5 - 0.5 * math.cos(2 * math.pi * (k + 0.5) / self.frame) for k in range(self.frame)]
        total = sum(w)
        self.weights = [v / total for v in w]

    def __call__(self, x):
        x = x / np.abs(x).max()
        sq = x * x
        energy = (-sq * np.log(sq + 1e-12)).tolist()
        env = []
        for start in range(0, len(energy) - self.frame + 1, self.hop):
            acc = 0.0
            for k, w in enumerate(self.weights):
                acc += w * energy[start + k]
            env.append(acc)
        mean = sum(env) / len(env)
        std = math.sqrt(sum((v - mean) ** 2 for v in env) / len(env))
        return [(v - mean) / std for v in env]


def pick_peaks(env, threshold, min_distance):
    """Local maxima above threshold; the tallest first, each blocking min_distance frames."""
    candidates = [i for i in range(1, len(env) - 1)
                  if env[i] > threshold and env[i] > env[i - 1] and env[i] >= env[i + 1]]
    accepted = []
    for i in sorted(candidates, key=lambda j: env[j], reverse=True):
        pos = bisect.bisect_left(accepted, i)
        if pos > 0 and i - accepted[pos - 1] < min_distance:
            continue
        if pos < len(accepted) and accepted[pos] - i < min_distance:
            continue
        accepted.insert(pos, i)
    return accepted


def cycle_features(peaks, env, hop_s):
    """Label peaks S1/S2 by interval alternation and summarise each S1-S2-S1 cycle."""
    feats = [0.0] * N_CYCLE_FEATURES
    if len(peaks) < 4:
        return feats
    gaps = [(b - a) * hop_s for a, b in zip(peaks, peaks[1:])]
    # a peak followed by a shorter gap than the one before it opens systole: S1
    is_s1 = [gaps[k] < gaps[k - 1] for k in range(1, len(gaps))]
    systoles, diastoles, amp_ratio, extra = [], [], [], 0
    for k, s1 in enumerate(is_s1, start=1):
        if not s1 or k + 1 >= len(peaks):
            continue
        sys_len = gaps[k]
        dia_len = gaps[k + 1] if k + 1 < len(gaps) else None
        if sys_len > 0.5:
            extra += 1
            continue
        systoles.append(sys_len)
        if dia_len is not None:
            diastoles.append(dia_len)
        amp_ratio.append(env[peaks[k + 1]] / env[peaks[k]])
    if not systoles or not diastoles:
        return feats
    rr = [s + d for s, d in zip(systoles, diastoles)]
    feats[0] = statistics.fmean(systoles)
    feats[1] = statistics.pstdev(systoles)
    feats[2] = statistics.fmean(diastoles)
    feats[3] = statistics.pstdev(diastoles)
    feats[4] = statistics.fmean(rr)
    feats[5] = feats[0] / feats[2]
    feats[6] = statistics.fmean(amp_ratio)
    feats[7] = statistics.median(gaps)
    feats[8] = len(peaks) / (len(env) * hop_s)
    feats[9] = extra / len(peaks)
    return feats


class PCGWindows(IterableDataset):
    """Random windows of the recordings, each with a random gain and sensor noise."""

    def __init__(self, cfg, seed):
        d, e = cfg["data"], cfg["envelope"]
        self.fs = d.getint("sample_rate")
        self.window = int(self.fs * d.getfloat("window_seconds"))
        self.noise_std = d.getfloat("noise_std")
        self.samples_per_epoch = cfg["train"].getint("samples_per_epoch")
        rng = np.random.default_rng(seed)
        self.labels = [int(v) for v in rng.integers(0, len(CLASSES), d.getint("n_recordings"))]
        self.records = [synth_recording(rng, self.fs, d.getfloat("record_seconds"), lab)
                        for lab in self.labels]
        self.envelope = ShannonEnvelope(self.fs, e.getfloat("frame_ms"), e.getfloat("hop_ms"))
        self.threshold = e.getfloat("threshold")
        self.min_distance = int(e.getfloat("min_peak_distance_ms") / e.getfloat("hop_ms"))
        self.keep_every = e.getint("keep_every")
        self.hop_s = self.envelope.hop / self.fs
        self.rng = np.random.default_rng(seed + 1)

    def __iter__(self):
        for _ in range(self.samples_per_epoch):
            r = int(self.rng.integers(len(self.records)))
            pcm = np.frombuffer(self.records[r], dtype="<i2")
            start = int(self.rng.integers(0, len(pcm) - self.window))
            gain = self.rng.uniform(0.6, 1.4)
            x = pcm[start:start + self.window].astype(np.float64) / 32768.0 * gain
            x = x + self.rng.normal(0.0, self.noise_std, self.window)
            env = self.envelope(x)
            peaks = pick_peaks(env, self.threshold, self.min_distance)
            feats = cycle_features(peaks, env, self.hop_s)
            yield (np.asarray(env[::self.keep_every], dtype=np.float32),
                   np.asarray(feats, dtype=np.float32), self.labels[r])


def collate(items):
    env, feats, labels = zip(*items)
    return PCGBatch(torch.from_numpy(np.stack(env))[:, None], torch.from_numpy(np.stack(feats)),
                    torch.tensor(labels, dtype=torch.long))


class PCGNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(1, 16, 7, padding=3), nn.ReLU(), nn.MaxPool1d(4),
            nn.Conv1d(16, 16, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(8))
        self.head = nn.Sequential(nn.Linear(16 * 8 + N_CYCLE_FEATURES, 32), nn.ReLU(),
                                  nn.Linear(32, len(CLASSES)))

    def forward(self, env, feats):
        return self.head(torch.cat([self.conv(env).flatten(1), feats], dim=1))


# ----------------------------------------------------------------------------- trainer
class Trainer:
    def __init__(self, model, optimizer, meter, log_every):
        self.model, self.optimizer, self.meter = model, optimizer, meter
        self.log_every = log_every
        self.global_step = 0
        self.history = []

    def training_step(self, batch):
        logits = self.model(batch.envelope, batch.cycle_features)
        return F.cross_entropy(logits, batch.label), logits

    def on_step_end(self, loss, logits, batch):
        acc = float((logits.argmax(1) == batch.label).float().mean())
        self.history.append(acc)
        if self.global_step % self.log_every == 0:
            print(f"step {self.global_step}: loss {loss.item():.4f} acc {acc:.3f}")

    def fit(self, loader, epochs):
        self.model.train()
        for epoch in range(epochs):
            for batch in loader:
                self.meter.batch(batch)
                loss, logits = self.training_step(batch)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.meter.step(loss)
                self.global_step += 1
                self.on_step_end(loss, logits, batch)
                if self.meter.done():
                    return epoch
        return epochs - 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)

    seed = cfg["data"].getint("seed")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    tc = cfg["train"]
    dataset = PCGWindows(cfg, seed)
    loader = DataLoader(dataset, batch_size=tc.getint("batch_size"),
                        num_workers=tc.getint("num_workers"), collate_fn=collate)
    model = PCGNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=tc.getfloat("lr"))
    meter = evalkit.Meter()
    trainer = Trainer(model, optimizer, meter, tc.getint("log_every"))
    last_epoch = trainer.fit(loader, tc.getint("epochs"))
    meter.report({"last_epoch": last_epoch,
                  "mean_train_acc": sum(trainer.history) / max(len(trainer.history), 1)})


if __name__ == "__main__":
    main()
