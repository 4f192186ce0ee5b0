"""Power-system event classifier on synchrophasor features.

Each event is a COMTRADE-style binary capture (per sample: uint32 sample number, uint32 timestamp in
microseconds, six int16 channels Va Vb Vc Ia Ib Ic, scaled by the .cfg's a*x+b). Features are the
phasors of one-cycle windows (single-bin DFT at the nominal frequency), the positive-sequence voltage
and current, the frequency from the positive-sequence angle advance, and the rate of change of frequency.

    python train.py pmu.toml
"""
import math
import random
import struct
import sys
import tomllib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import evalkit

RECORD = struct.Struct("<II6h")
CHANNELS = ("Va", "Vb", "Vc", "Ia", "Ib", "Ic")
ALPHA_RE, ALPHA_IM = -0.5, math.sqrt(3.0) / 2.0        # a = exp(j 120 deg)
ALPHA2_RE, ALPHA2_IM = -0.5, -math.sqrt(3.0) / 2.0     # a^2


# --------------------------------------------------------------------------- capture synthesis
def synthesize_capture(rng, kind, sig):
    """One event capture as (COMTRADE .dat bytes, per-channel (a, b) scale factors)."""
    fs = sig["f_nominal"] * sig["samples_per_cycle"]
    n = sig["record_samples"]
    t = np.arange(n) / fs
    f0 = sig["f_nominal"]
    freq = np.full(n, f0 + rng.normal(0.0, 0.01))
    vmag = np.ones((3, n)) * sig["v_nominal"] * math.sqrt(2.0) * rng.uniform(0.97, 1.03)
    imag = np.ones((3, n)) * sig["i_nominal"] * math.sqrt(2.0) * rng.uniform(0.5, 0.9)
    t_event = rng.uniform(0.05, 0.18)
    after = t >= t_event
    if kind == "fault_slg":
        ph = rng.integers(0, 3)
        vmag[ph, after] *= rng.uniform(0.2, 0.6)
        imag[ph, after] *= rng.uniform(3.0, 6.0)
    elif kind == "load_step":
        imag[:, after] *= rng.uniform(1.3, 1.8)
        vmag[:, after] *= rng.uniform(0.97, 0.99)
    elif kind == "gen_trip":
        freq[after] += rng.uniform(-1.5, -0.4) * (t[after] - t_event)
    elif kind == "oscillation":
        freq += rng.uniform(0.05, 0.2) * np.sin(2 * math.pi * rng.uniform(0.8, 2.5) * t)
    theta = 2 * math.pi * np.cumsum(freq) / fs + rng.uniform(-math.pi, math.pi)
    shifts = np.array([0.0, -2 * math.pi / 3, 2 * math.pi / 3])
    pf = rng.uniform(0.2, 0.6)
    volts = vmag * np.cos(theta[None] + shifts[:, None])
    amps = imag * np.cos(theta[None] + shifts[:, None] - pf)
    volts += 0.02 * vmag * np.cos(5 * (theta[None] + shifts[:, None]))      # 5th harmonic
    wave = np.concatenate([volts, amps]) + rng.normal(0.0, 1.0, (6, n)) * np.array(
        [20.0] * 3 + [2.0] * 3)[:, None]
    scale = np.array([1.0] * 3 + [0.1] * 3) * np.ceil(np.abs(wave).max(1) / 30000.0)
    counts = np.clip(np.rint(wave / scale[:, None]), -32767, 32767).astype("<i2")
    rec = np.zeros(n, dtype=[("n", "<u4"), ("ts", "<u4"), ("ch", "<i2", (6,))])
    rec["n"] = np.arange(1, n + 1)
    rec["ts"] = np.rint(t * 1e6).astype(np.uint32)
    rec["ch"] = counts.T
    return rec.tobytes(), [(float(a), 0.0) for a in scale]


# --------------------------------------------------------------------------- feature extraction
def read_channels(dat, factors):
    """Parse the binary records into per-channel lists of physical values (a * x + b)."""
    chans = [[] for _ in CHANNELS]
    for rec in RECORD.iter_unpack(dat):
        for c, raw in enumerate(rec[2:]):
            a, b = factors[c]
            chans[c].append(a * raw + b)
    return chans


def dft_phasor(x, start, n_win, omega):
    """Single-bin DFT at the nominal frequency over x[start:start+n_win], as an RMS phasor (re, im)."""
    re = 0.0
    im = 0.0
    for k in range(n_win):
        v = x[start + k]
        re += v * math.cos(omega * k)
        im -= v * math.sin(omega * k)
    g = math.sqrt(2.0) / n_win
    return re * g, im * g


def positive_sequence(pa, pb, pc):
    re = (pa[0] + (ALPHA_RE * pb[0] - ALPHA_IM * pb[1]) + (ALPHA2_RE * pc[0] - ALPHA2_IM * pc[1])) / 3.0
    im = (pa[1] + (ALPHA_RE * pb[1] + ALPHA_IM * pb[0]) + (ALPHA2_RE * pc[1] + ALPHA2_IM * pc[0])) / 3.0
    return re, im


def wrap(a):
    while a > math.pi:
        a -= 2 * math.pi
    while a <= -math.pi:
        a += 2 * math.pi
    return a


class PhasorFeatures:
    """Window phasors -> per-window feature rows [|V1|, |I1|, df, rocof, |Va|, |Vb|, |Vc|, |Ia|, |Ib|, |Ic|]."""

    def __init__(self, sig):
        self.n_win = sig["samples_per_cycle"]
        self.hop = sig["hop"]
        self.fs = sig["f_nominal"] * sig["samples_per_cycle"]
        self.f0 = sig["f_nominal"]
        self.omega = 2 * math.pi * self.f0 / self.fs
        self.vn, self.inom = sig["v_nominal"], sig["i_nominal"]

    def __call__(self, chans):
        n = len(chans[0])
        starts = range(0, n - self.n_win + 1, self.hop)
        advance = self.omega * self.hop                      # nominal angle advance per hop
        dt = self.hop / self.fs
        rows, prev_ang, prev_f = [], None, None
        for s in starts:
            ph = [dft_phasor(x, s, self.n_win, self.omega) for x in chans]
            v1 = positive_sequence(ph[0], ph[1], ph[2])
            i1 = positive_sequence(ph[3], ph[4], ph[5])
            ang = math.atan2(v1[1], v1[0])
            f = self.f0 if prev_ang is None else self.f0 + wrap(ang - prev_ang - advance) / (2 * math.pi * dt)
            rocof = 0.0 if prev_f is None else (f - prev_f) / dt
            prev_ang, prev_f = ang, f
            mags = [math.hypot(p[0], p[1]) for p in ph]
            rows.append([math.hypot(*v1) / self.vn, math.hypot(*i1) / self.inom, f - self.f0, rocof / 10.0]
                        + [m / self.vn for m in mags[:3]] + [m / self.inom for m in mags[3:]])
        return rows


class CaptureDataset(Dataset):
    def __init__(self, captures, labels, sig, seed):
        self.captures = captures            # list of (dat bytes, factors)
        self.labels = labels
        self.crop = sig["crop_samples"]
        self.features = PhasorFeatures(sig)
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.captures)

    def __getitems__(self, indices):
        out = []
        for idx in indices:
            dat, factors = self.captures[idx]
            chans = read_channels(dat, factors)
            off = self.rng.randrange(len(chans[0]) - self.crop + 1)        # trigger jitter
            chans = [c[off:off + self.crop] for c in chans]
            rows = self.features(chans)
            out.append((torch.tensor(rows, dtype=torch.float32), self.labels[idx]))
        return out

    def __getitem__(self, idx):
        return self.__getitems__([idx])[0]


# --------------------------------------------------------------------------- model / trainer
class EventNet(nn.Module):
    def __init__(self, n_feat, n_classes, width=32):
        super().__init__()
        self.conv1 = nn.Conv1d(n_feat, width, 5, padding=2)
        self.conv2 = nn.Conv1d(width, width, 5, padding=2)
        self.fc = nn.Linear(2 * width, n_classes)

    def forward(self, x):                       # x: (B, T, F)
        h = F.gelu(self.conv1(x.transpose(1, 2)))
        h = F.gelu(self.conv2(h))
        return self.fc(torch.cat([h.mean(-1), h.amax(-1)], dim=1))


class Trainer:
    def __init__(self, model, loader, lr, log_every):
        self.model, self.loader, self.log_every = model, loader, log_every
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.meter = evalkit.Meter()
        self.global_step = 0
        self.feature_stats = [0.0, 0.0]

    def training_step(self, batch):
        feats, labels = batch
        # per-feature scaling learnt by the first layer; the loss is plain cross-entropy
        loss = F.cross_entropy(self.model(feats), labels)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss

    def fit(self, epochs):
        for epoch in range(epochs):
            self.model.train()
            for batch in self.loader:
                self.meter.batch(batch)
                loss = self.training_step(batch)
                self.meter.step(loss)
                self.global_step += 1
                self.feature_stats[0] += float(batch[0][:, :, 2].abs().max())
                self.feature_stats[1] += float(batch[0][:, :, 3].abs().mean())
                if self.global_step % self.log_every == 0:
                    print(f"epoch {epoch} step {self.global_step} loss {loss.item():.4f}", flush=True)
                if self.meter.done():
                    return
        return


def main():
    with open(sys.argv[1], "rb") as fh:
        cfg = tomllib.load(fh)
    torch.set_num_threads(1)
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    sig = cfg["signal"]
    classes = cfg["data"]["classes"]
    rng = np.random.default_rng(cfg["seed"])
    labels = [int(rng.integers(0, len(classes))) for _ in range(cfg["data"]["events"])]
    captures = [synthesize_capture(rng, classes[y], sig) for y in labels]
    ds = CaptureDataset(captures, labels, sig, cfg["seed"] + 1)
    lc = cfg["loader"]
    loader = DataLoader(ds, batch_size=lc["batch_size"], shuffle=lc["shuffle"],
                        num_workers=lc["num_workers"], generator=torch.Generator().manual_seed(cfg["seed"]))
    model = EventNet(10, len(classes))
    trainer = Trainer(model, loader, cfg["train"]["lr"], cfg["train"]["log_every"])
    trainer.fit(cfg["train"]["epochs"])
    trainer.meter.report(extra={"steps": trainer.global_step,
                                "max_abs_df_sum": trainer.feature_stats[0],
                                "mean_abs_rocof_sum": trainer.feature_stats[1]})


if __name__ == "__main__":
    main()
