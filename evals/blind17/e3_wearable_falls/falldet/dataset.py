"""An IterableDataset of labelled windows drawn at random from the recordings."""
import bisect
import random
from collections import namedtuple

import torch
from torch.utils.data import IterableDataset

from .features import window_features
from .recordings import butter_lowpass, decode_packets
from .signal import Biquad, resample_linear

WindowSample = namedtuple("WindowSample", ["signal", "features", "label"])


class FallWindows(IterableDataset):
    def __init__(self, recordings, cfg, seed):
        self.fs = cfg["fs"]
        self.period_ms = 1000 // self.fs
        self.window = int(cfg["window_s"] * self.fs)
        self.samples_per_epoch = cfg["samples_per_epoch"]
        self.fall_fraction = cfg["fall_fraction"]
        self.gain = tuple(cfg["gain_range"])
        self.peak_height = cfg["peak_height_g"]
        self.peak_distance = int(cfg["peak_distance_s"] * self.fs)
        self.filter = Biquad(*butter_lowpass(cfg["lowpass_hz"], self.fs), channels=3)
        self.recordings = []
        for rec in recordings:
            ts, acc = decode_packets(rec["packets"])
            n_out = (ts[-1] - ts[0]) // self.period_ms + 1
            self.recordings.append({"ts": ts, "acc": acc, "n_out": n_out, "falls": rec["falls"],
                                    "t0": ts[0] / 1000.0})
        self.with_falls = [i for i, r in enumerate(self.recordings) if r["falls"]]
        self.rng = random.Random(seed)

    def filtered_prefix(self, rec, n):
        """The low-passed 50 Hz stream from the start of the recording up to sample n (filter warmed up)."""
        frames = resample_linear(rec["ts"], rec["acc"], self.period_ms, n)
        return self.filter.run(frames)

    def draw(self):
        rng = self.rng
        if self.with_falls and rng.random() < self.fall_fraction:
            rec = self.recordings[rng.choice(self.with_falls)]
            t_fall = rng.choice(rec["falls"])
            centre = int((t_fall - rec["t0"]) * self.fs) + rng.randint(-self.window // 3, self.window // 3)
            start = min(max(0, centre - self.window // 2), rec["n_out"] - self.window)
        else:
            rec = rng.choice(self.recordings)
            start = rng.randrange(rec["n_out"] - self.window + 1)
        stop = start + self.window
        # Label: an annotated impact inside the window.
        t_lo, t_hi = rec["t0"] + start / self.fs, rec["t0"] + stop / self.fs
        k = bisect.bisect_left(rec["falls"], t_lo)
        label = int(k < len(rec["falls"]) and rec["falls"][k] < t_hi)

        x, y, z = (ch[start:stop] for ch in self.filtered_prefix(rec, stop))
        # Worn on the other wrist / rotated strap: permute and flip axes, then a sensor gain.
        axes = [x, y, z]
        rng.shuffle(axes)
        gain = rng.uniform(*self.gain)
        signs = [-1.0 if rng.random() < 0.5 else 1.0 for _ in axes]
        axes = [[v * gain * sign for v in ch] for ch, sign in zip(axes, signs)]
        mag, feats = window_features(*axes, self.fs, self.peak_height, self.peak_distance)
        signal = torch.tensor(axes + [mag], dtype=torch.float32)
        return WindowSample(signal, torch.tensor(feats, dtype=torch.float32), torch.tensor(label))

    def __iter__(self):
        for _ in range(self.samples_per_epoch):
            yield self.draw()
