"""Event-type classification and P-onset regression on band-passed, STA/LTA-centred windows.

    python train.py --config seismic.ini
"""
import argparse
import configparser
from collections import namedtuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, IterableDataset

import evalkit
from dsp import BandPass, classic_sta_lta, demean, trigger_onset
from waveforms import EVENT_TYPES, make_catalogue, unpack_record

Batch = namedtuple("Batch", ["waveform", "onset", "kind", "peak_cft"])


class TriggeredWindows(IterableDataset):
    """Streams one window per event record, in a new order every epoch.

    Each record is decoded, calibrated, demeaned and band-passed on all three components; the
    classic STA/LTA of Z is triggered, and a window of `window` samples is cut around the first
    trigger (or the STA/LTA maximum), shifted at random by up to +-max_shift samples."""

    def __init__(self, records, labels, cfg, seed):
        self.records, self.labels = records, labels
        self.seed = seed
        self.epoch = 0
        self.window = cfg.getint("data", "window")
        self.max_shift = cfg.getint("data", "max_shift")
        self.rate = cfg.getfloat("data", "sampling_rate")
        self.bandpass = BandPass(cfg.getfloat("filter", "freqmin"), cfg.getfloat("filter", "freqmax"), self.rate)
        self.nsta = int(cfg.getfloat("trigger", "sta_seconds") * self.rate)
        self.nlta = int(cfg.getfloat("trigger", "lta_seconds") * self.rate)
        self.thr_on = cfg.getfloat("trigger", "thr_on")
        self.thr_off = cfg.getfloat("trigger", "thr_off")

    def set_epoch(self, epoch):
        self.epoch = epoch

    def process(self, blob):
        meta, traces = unpack_record(blob)
        filtered = {}
        for comp in "ZNE":
            counts, calib = traces[comp]
            filtered[comp] = self.bandpass(demean([c * calib for c in counts.tolist()]))
        cft = classic_sta_lta(filtered["Z"], self.nsta, self.nlta)
        triggers = trigger_onset(cft, self.thr_on, self.thr_off)
        pick = triggers[0][0] if triggers else max(range(len(cft)), key=cft.__getitem__)
        return meta, filtered, pick, max(cft)

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed * 1000 + self.epoch)
        for idx in torch.randperm(len(self.records), generator=g).tolist():
            meta, filtered, pick, peak = self.process(self.records[idx])
            shift = int(torch.randint(-self.max_shift, self.max_shift + 1, (1,), generator=g))
            start = min(max(pick - self.window // 2 + shift, 0), meta["npts"] - self.window)
            win = np.array([filtered[c][start:start + self.window] for c in "ZNE"], dtype=np.float64)
            scale = float(np.abs(win).max()) or 1.0
            kind, onset_s = self.labels[idx]
            yield (torch.from_numpy((win / scale).astype(np.float32)),
                   (onset_s * meta["sampling_rate"] - start) / self.window, kind, peak)


def collate_windows(items):
    waves, onsets, kinds, peaks = zip(*items)
    return Batch(torch.stack(waves), torch.tensor(onsets, dtype=torch.float32),
                 torch.tensor(kinds, dtype=torch.long), torch.tensor(peaks, dtype=torch.float32))


class PickerModule(nn.Module):
    """LightningModule-like: forward, training_step, configure_optimizers."""

    def __init__(self, lr, onset_weight, n_kinds=len(EVENT_TYPES)):
        super().__init__()
        self.lr, self.onset_weight = lr, onset_weight
        self.encoder = nn.Sequential(
            nn.Conv1d(3, 16, 9, stride=4, padding=4), nn.GELU(),
            nn.Conv1d(16, 32, 7, stride=4, padding=3), nn.GELU(),
            nn.Conv1d(32, 32, 5, stride=2, padding=2), nn.GELU(),
        )
        self.kind_head = nn.Linear(32, n_kinds)
        self.onset_head = nn.Conv1d(32, 1, 1)

    def forward(self, x):
        h = self.encoder(x)
        kind_logits = self.kind_head(h.mean(-1))
        prob = self.onset_head(h).squeeze(1).softmax(-1)
        pos = (torch.arange(prob.shape[-1], dtype=prob.dtype) + 0.5) / prob.shape[-1]
        return kind_logits, (prob * pos).sum(-1)

    def training_step(self, batch, batch_idx):
        kind_logits, onset = self(batch.waveform)
        target = batch.onset.clamp(-0.5, 1.5)
        loss = F.cross_entropy(kind_logits, batch.kind) + self.onset_weight * F.smooth_l1_loss(onset, target, beta=0.05)
        return {"loss": loss, "acc": (kind_logits.argmax(1) == batch.kind).float().mean().item(),
                "onset_err": (onset - target).abs().mean().item()}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


def fit(module, dataset, loader, epochs, log_every):
    opt = module.configure_optimizers()
    meter = evalkit.Meter()
    history = []
    step = 0
    for epoch in range(epochs):
        dataset.set_epoch(epoch)
        module.train()
        for batch_idx, batch in enumerate(loader):
            meter.batch(batch)
            out = module.training_step(batch, batch_idx)
            opt.zero_grad()
            out["loss"].backward()
            opt.step()
            meter.step(out["loss"])
            step += 1
            if step % log_every == 0:
                history.append({"step": step, "acc": out["acc"], "onset_err": round(out["onset_err"], 5)})
                print(f"epoch {epoch} step {step} loss {out['loss'].item():.4f} acc {out['acc']:.2f} "
                      f"onset_err {out['onset_err']:.4f}")
            if meter.done():
                return meter, history
    return meter, history


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="seismic.ini")
    args = ap.parse_args()
    cfg = configparser.ConfigParser()
    cfg.read(args.config)
    seed = cfg.getint("data", "seed")
    torch.set_num_threads(1)
    np.random.seed(seed)
    torch.manual_seed(seed)

    records, labels = make_catalogue(cfg.getint("data", "n_records"), cfg.getfloat("data", "record_seconds"),
                                     cfg.getfloat("data", "sampling_rate"), seed)
    dataset = TriggeredWindows(records, labels, cfg, seed)
    loader = DataLoader(dataset, batch_size=cfg.getint("loader", "batch_size"),
                        num_workers=cfg.getint("loader", "num_workers"), collate_fn=collate_windows)
    module = PickerModule(cfg.getfloat("train", "lr"), cfg.getfloat("train", "onset_weight"))
    meter, history = fit(module, dataset, loader, cfg.getint("train", "epochs"), cfg.getint("train", "log_every"))
    meter.report(extra={"history": history})


if __name__ == "__main__":
    main()
