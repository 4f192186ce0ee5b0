"""Hand-gesture recognition from 8-channel surface EMG windows.

    python train.py emg.ini
"""
import collections
import configparser
import sys

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, Sampler

import evalkit
from emg_io import decode_trial, encode_trial, synth_trial
from features import HudginsFeatures

Batch = collections.namedtuple("Batch", ["envelope", "scalars", "gesture"])


class TrialStore:
    def __init__(self, acq, seed):
        rng = np.random.default_rng(seed)
        rate = acq.getint("sample_rate")
        n = int(acq.getfloat("trial_seconds") * rate)
        gain = acq.getfloat("adc_gain_uv")
        self.blobs, self.labels = [], []
        for g in range(acq.getint("gestures")):
            for _ in range(acq.getint("trials_per_gesture")):
                counts = synth_trial(rng, g, acq.getint("channels"), rate, n, gain)
                self.blobs.append(encode_trial(counts, rate, gain))
                self.labels.append(g)


class WindowBatchSampler(Sampler):
    """Yields batches of (trial, offset, gain) keys: a random trial, a random window start and a
    random per-window electrode gain (simulated skin-contact variation)."""

    def __init__(self, n_trials, trial_len, window, batch_size, batches_per_epoch, generator):
        self.n_trials, self.trial_len, self.window = n_trials, trial_len, window
        self.batch_size, self.batches_per_epoch = batch_size, batches_per_epoch
        self.generator = generator

    def __len__(self):
        return self.batches_per_epoch

    def __iter__(self):
        for _ in range(self.batches_per_epoch):
            trials = torch.randint(0, self.n_trials, (self.batch_size,), generator=self.generator).tolist()
            offsets = torch.randint(0, self.trial_len - self.window + 1, (self.batch_size,),
                                    generator=self.generator).tolist()
            gains = (0.8 + 0.4 * torch.rand(self.batch_size, generator=self.generator, dtype=torch.float64)).tolist()
            yield list(zip(trials, offsets, gains))


class EMGWindows(Dataset):
    def __init__(self, store, window, extractor):
        self.store, self.window, self.extractor = store, window, extractor

    def __len__(self):
        return len(self.store.blobs)

    def __getitem__(self, key):
        trial, offset, gain = key
        counts, _rate, gain_uv = decode_trial(self.store.blobs[trial])
        scale = gain_uv / 1000.0 * gain
        window = [[c * scale for c in ch] for ch in counts[:, offset:offset + self.window].tolist()]
        env, scalars = self.extractor(window)
        return torch.tensor(env, dtype=torch.float32), torch.tensor(scalars, dtype=torch.float32), \
            self.store.labels[trial]


def collate(items):
    env, scalars, labels = zip(*items)
    return Batch(torch.stack(env), torch.stack(scalars), torch.tensor(labels, dtype=torch.long))


class GestureNet(nn.Module):
    def __init__(self, channels, points, n_scalars, n_classes):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(channels, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool1d(4),
                                  nn.Flatten())
        self.norm = nn.LayerNorm(channels * n_scalars)
        self.head = nn.Sequential(nn.Linear(64 + channels * n_scalars, 32), nn.ReLU(), nn.Linear(32, n_classes))

    def forward(self, envelope, scalars):
        z = torch.cat([self.conv(envelope * 10.0), self.norm(scalars.flatten(1))], dim=1)
        return self.head(z)


def main(argv):
    cfg = configparser.ConfigParser()
    cfg.read(argv[1] if len(argv) > 1 else "emg.ini")
    acq, feat, ld, tr = cfg["acquisition"], cfg["features"], cfg["loader"], cfg["train"]
    seed = acq.getint("seed")
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    np.random.seed(seed)

    store = TrialStore(acq, seed)
    extractor = HudginsFeatures(feat.getint("rms_window"), feat.getint("envelope_points"),
                                feat.getint("sub_windows"), feat.getfloat("zc_threshold_mv"),
                                feat.getfloat("ssc_threshold"))
    window = feat.getint("window")
    dataset = EMGWindows(store, window, extractor)
    trial_len = int(acq.getfloat("trial_seconds") * acq.getint("sample_rate"))
    sampler = WindowBatchSampler(len(dataset), trial_len, window, ld.getint("batch_size"),
                                 ld.getint("batches_per_epoch"), torch.Generator().manual_seed(seed + 1))
    loader = DataLoader(dataset, batch_sampler=sampler, collate_fn=collate, num_workers=ld.getint("num_workers"))

    model = GestureNet(acq.getint("channels"), feat.getint("envelope_points"), 4 * feat.getint("sub_windows"),
                       acq.getint("gestures"))
    opt = torch.optim.Adam(model.parameters(), lr=tr.getfloat("lr"))
    meter = evalkit.Meter()
    max_steps = tr.getint("max_steps")
    step, restarts, correct = 0, 0, 0
    it = iter(loader)
    while step < max_steps:
        try:
            batch = next(it)
        except StopIteration:
            restarts += 1
            it = iter(loader)
            continue
        meter.batch(batch)
        logits = model(batch.envelope, batch.scalars)
        loss = nn.functional.cross_entropy(logits, batch.gesture)
        opt.zero_grad()
        loss.backward()
        opt.step()
        meter.step(loss)
        correct += int((logits.argmax(1) == batch.gesture).sum())
        step += 1
        if meter.done():
            break
    meter.report({"restarts": restarts, "train_correct": correct})


if __name__ == "__main__":
    main(sys.argv)
