"""Eyes-open / eyes-closed classification from filtered EEG epochs.

    python train.py eeg.ini
"""
import configparser
import random
import sys
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader

import evalkit
from epochs import EEGEpochStream, make_recordings

EEGBatch = namedtuple("EEGBatch", ["signal", "bands", "flags", "label"])


def collate_epochs(samples):
    return EEGBatch(
        signal=torch.from_numpy(np.stack([s["signal"] for s in samples])).float(),
        bands=torch.from_numpy(np.stack([s["bands"] for s in samples])).float(),
        flags=torch.tensor([s["flags"] for s in samples], dtype=torch.float32),
        label=torch.tensor([s["label"] for s in samples], dtype=torch.long),
    )


class EEGNetLite(nn.Module):
    def __init__(self, n_channels, n_bands, width=16):
        super().__init__()
        self.temporal = nn.Conv1d(n_channels, width, 15, stride=2, padding=7)
        self.conv = nn.Conv1d(width, width, 7, stride=2, padding=3)
        self.band_proj = nn.Linear(n_channels * (n_bands + 1), width)
        self.head = nn.Linear(2 * width, 2)

    def forward(self, batch):
        x = batch.signal / 50.0
        h = F.gelu(self.conv(F.gelu(self.temporal(x)))).mean(-1)
        feats = torch.cat([batch.bands, batch.flags.unsqueeze(-1)], dim=-1).flatten(1)
        return self.head(torch.cat([h, F.gelu(self.band_proj(feats))], dim=-1))


class Trainer:
    def __init__(self, model, loader, lr, passes, meter):
        self.model, self.loader, self.passes, self.meter = model, loader, passes, meter
        self.opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, nesterov=True)
        self.history = []

    def training_step(self, batch):
        logits = self.model(batch)
        loss = F.cross_entropy(logits, batch.label)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss, (logits.argmax(1) == batch.label).float().mean().item()

    def fit(self):
        self.model.train()
        for p in range(self.passes):
            accs, flagged = [], 0.0
            for batch in self.loader:
                self.meter.batch(batch)
                loss, acc = self.training_step(batch)
                self.meter.step(loss)
                accs.append(acc)
                flagged += float(batch.flags.sum())
                if self.meter.done():
                    break
            self.history.append({"pass": p, "acc": round(sum(accs) / max(len(accs), 1), 6), "flagged": flagged})
            if self.meter.done():
                break
        return self.history


def main():
    cfg = configparser.ConfigParser()
    cfg.read(sys.argv[1] if len(sys.argv) > 1 else "eeg.ini")
    seed = cfg.getint("train", "seed")
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(1)

    d = cfg["data"]
    fs = d.getint("fs")
    recordings = make_recordings(d.getint("n_recordings"), d.getint("n_channels"), fs,
                                 d.getfloat("duration_s"), d.getfloat("block_s"), seed)
    f = cfg["filters"]
    stream = EEGEpochStream(recordings, fs, int(d.getfloat("epoch_s") * fs), int(d.getfloat("pad_s") * fs),
                            {"notch_hz": f.getfloat("notch_hz"), "notch_q": f.getfloat("notch_q"),
                             "highpass_hz": f.getfloat("highpass_hz"), "lowpass_hz": f.getfloat("lowpass_hz")},
                            cfg.getfloat("artifacts", "threshold_uv"), cfg.getint("train", "samples_per_pass"), seed)
    t = cfg["train"]
    loader = DataLoader(stream, batch_size=t.getint("batch_size"), collate_fn=collate_epochs,
                        num_workers=t.getint("num_workers"))
    model = EEGNetLite(d.getint("n_channels"), 4)
    meter = evalkit.Meter()
    history = Trainer(model, loader, t.getfloat("lr"), t.getint("passes"), meter).fit()
    meter.report({"history": history})


if __name__ == "__main__":
    main()
