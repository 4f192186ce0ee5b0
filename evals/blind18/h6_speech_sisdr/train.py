"""Mask-based speech enhancement (a small TasNet-style model) with per-utterance SI-SDR / segmental SNR logging.

    python train.py @train_args.txt
"""
import argparse
import math
import random

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import evalkit

EPS = 1e-8


# ----------------------------------------------------------------------------- data

def synth_utterance(rng, sr, seconds):
    """Voiced 'speech': a few syllables of harmonic tones with a gliding f0 and formant-ish weights."""
    n = int(sr * seconds)
    t = np.arange(n) / sr
    out = np.zeros(n)
    pos = int(rng.integers(0, sr // 10))
    while pos < n - sr // 20:
        length = int(rng.integers(sr // 12, sr // 4))
        end = min(n, pos + length)
        seg_t = t[pos:end] - t[pos]
        f0 = rng.uniform(90, 260) * (1 + rng.uniform(-0.15, 0.15) * seg_t / max(seg_t[-1], 1e-3))
        phase = 2 * np.pi * np.cumsum(f0) / sr
        formants = rng.uniform([300, 900, 2200], [800, 1800, 3000])
        voiced = np.zeros(end - pos)
        for h in range(1, 16):
            fh = f0 * h
            weight = sum(np.exp(-((fh - f) / 180.0) ** 2) for f in formants) / h ** 0.5
            voiced += weight * np.sin(h * phase)
        env = np.sin(np.pi * np.linspace(0, 1, end - pos)) ** 0.6
        out[pos:end] += env * voiced
        pos = end + int(rng.integers(sr // 40, sr // 8))
    return (out / (np.abs(out).max() + 1e-9) * 0.5).astype(np.float32)


def synth_noise(rng, n, kind):
    white = rng.standard_normal(n)
    if kind == 0:
        return white
    if kind == 1:  # pink-ish: 1/sqrt(f) spectral shaping
        spec = np.fft.rfft(white)
        spec /= np.sqrt(np.arange(1, len(spec) + 1))
        return np.fft.irfft(spec, n) * 8
    hum = np.sin(2 * np.pi * 50 * np.arange(n) / 8000 * (1 + 0.01 * rng.standard_normal()))
    return 0.4 * white + hum  # mains hum with hiss


class NoisySpeech(Dataset):
    """Clean utterances fixed at construction; each draw mixes fresh noise at a random SNR."""

    def __init__(self, args):
        bank = np.random.default_rng(args.seed)
        self.sr = args.sample_rate
        self.clean = [synth_utterance(bank, self.sr, bank.uniform(args.min_seconds, args.max_seconds))
                      for _ in range(args.num_utterances)]
        self.noise = [synth_noise(bank, 3 * self.sr, k % 3) for k in range(6)]
        self.snr = (args.snr_low, args.snr_high)
        self.rng = np.random.default_rng(args.seed + 1)

    def __len__(self):
        return len(self.clean)

    def __getitem__(self, idx):
        clean = self.clean[idx]
        noise_src = self.noise[int(self.rng.integers(len(self.noise)))]
        off = int(self.rng.integers(0, len(noise_src) - len(clean)))
        noise = noise_src[off:off + len(clean)]
        snr = self.rng.uniform(*self.snr)
        gain = math.sqrt(float(np.mean(clean ** 2)) / (float(np.mean(noise ** 2)) * 10 ** (snr / 10) + EPS))
        noisy = (clean + gain * noise).astype(np.float32)
        return noisy, clean


def pad_collate(items):
    lengths = torch.tensor([len(c) for _, c in items], dtype=torch.int64)
    n = int(lengths.max())
    noisy = torch.zeros(len(items), n)
    clean = torch.zeros(len(items), n)
    for i, (x, y) in enumerate(items):
        noisy[i, : len(x)] = torch.from_numpy(x)
        clean[i, : len(y)] = torch.from_numpy(y)
    return noisy, clean, lengths


# ----------------------------------------------------------------------------- metrics

def si_sdr(est, ref):
    """Scale-invariant SDR in dB of one utterance (lists of floats, zero-mean first)."""
    n = len(ref)
    mean_e = sum(est) / n
    mean_r = sum(ref) / n
    est = [e - mean_e for e in est]
    ref = [r - mean_r for r in ref]
    alpha = sum(e * r for e, r in zip(est, ref)) / (sum(r * r for r in ref) + EPS)
    target = [alpha * r for r in ref]
    noise = [e - t for e, t in zip(est, target)]
    return 10.0 * math.log10(sum(t * t for t in target) / (sum(v * v for v in noise) + EPS) + EPS)


def segmental_snr(est, ref, frame, hop, floor=-10.0, ceil=35.0, silence=1e-4):
    """Mean frame SNR (clamped) over the frames where the reference is not silent."""
    values = []
    for start in range(0, len(ref) - frame + 1, hop):
        r = ref[start:start + frame]
        sig = sum(x * x for x in r)
        if sig / frame < silence:
            continue
        err = sum((x - y) * (x - y) for x, y in zip(r, est[start:start + frame]))
        snr = 10.0 * math.log10(sig / (err + EPS) + EPS)
        values.append(min(max(snr, floor), ceil))
    return sum(values) / len(values) if values else 0.0


# ----------------------------------------------------------------------------- model

class MaskEnhancer(nn.Module):
    """A tiny TasNet-style enhancer on non-overlapping frames: a learned basis encoder,
    a masking MLP and a linear decoder back to samples."""

    def __init__(self, frame, basis, hidden):
        super().__init__()
        self.frame = frame
        self.encoder = nn.Linear(frame, basis, bias=False)
        self.mask = nn.Sequential(nn.Linear(basis, hidden), nn.ReLU(), nn.Linear(hidden, basis))
        self.decoder = nn.Linear(basis, frame, bias=False)

    def forward(self, wav):
        b, t = wav.shape
        pad = (-t) % self.frame
        frames = nn.functional.pad(wav, (0, pad)).view(b, -1, self.frame)
        w = torch.relu(self.encoder(frames))
        out = self.decoder(w * torch.sigmoid(self.mask(w)))
        return out.reshape(b, -1)[:, :t]


class EnhancementModule(nn.Module):
    """Lightning-style module: training_step, configure_optimizers and a batch-end hook for metrics."""

    def __init__(self, args):
        super().__init__()
        self.args = args
        self.model = MaskEnhancer(args.frame, args.basis, args.hidden)
        self.metric_log = {"si_sdr": [], "si_sdri": [], "seg_snr": [], "seg_snri": []}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.args.lr)

    def training_step(self, batch):
        noisy, clean, lengths = batch
        enhanced = self.model(noisy)
        mask = (torch.arange(noisy.shape[1])[None, :] < lengths[:, None]).float()
        loss = (((enhanced - clean) * mask) ** 2).sum() / mask.sum()
        return loss, enhanced.detach()

    def on_train_batch_end(self, batch, enhanced):
        noisy, clean, lengths = batch
        sdr, sdri, seg, segi = [], [], [], []
        for i, n in enumerate(lengths.tolist()):
            ref = clean[i, :n].tolist()
            est = enhanced[i, :n].tolist()
            mix = noisy[i, :n].tolist()
            s_est = si_sdr(est, ref)
            sdr.append(s_est)
            sdri.append(s_est - si_sdr(mix, ref))
            s_seg = segmental_snr(est, ref, self.args.seg_frame, self.args.seg_hop)
            seg.append(s_seg)
            segi.append(s_seg - segmental_snr(mix, ref, self.args.seg_frame, self.args.seg_hop))
        self.metric_log["si_sdr"].append(sum(sdr) / len(sdr))
        self.metric_log["si_sdri"].append(sum(sdri) / len(sdri))
        self.metric_log["seg_snr"].append(sum(seg) / len(seg))
        self.metric_log["seg_snri"].append(sum(segi) / len(segi))


def fit(module, loader, epochs, meter):
    opt = module.configure_optimizers()
    for epoch in range(epochs):
        module.train()
        for batch in loader:
            meter.batch(batch)
            loss, enhanced = module.training_step(batch)
            opt.zero_grad()
            loss.backward()
            opt.step()
            module.on_train_batch_end(batch, enhanced)
            meter.step(loss)
            if meter.done():
                return


def parse_args():
    ap = argparse.ArgumentParser(fromfile_prefix_chars="@")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sample-rate", type=int, default=8000)
    ap.add_argument("--num-utterances", type=int, default=160)
    ap.add_argument("--min-seconds", type=float, default=0.6)
    ap.add_argument("--max-seconds", type=float, default=1.0)
    ap.add_argument("--snr-low", type=float, default=-5.0)
    ap.add_argument("--snr-high", type=float, default=15.0)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--frame", type=int, default=32)
    ap.add_argument("--basis", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--seg-frame", type=int, default=256)
    ap.add_argument("--seg-hop", type=int, default=128)
    return ap.parse_args()


def main():
    args = parse_args()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    ds = NoisySpeech(args)
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=args.num_workers,
                        collate_fn=pad_collate, generator=torch.Generator().manual_seed(args.seed))
    module = EnhancementModule(args)
    meter = evalkit.Meter()
    fit(module, loader, args.epochs, meter)
    log = module.metric_log
    meter.report({key: log[key] for key in ("si_sdr", "si_sdri", "seg_snr", "seg_snri")})


if __name__ == "__main__":
    main()
