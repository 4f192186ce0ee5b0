"""End-to-end neural diarisation (EEND-style) on fixed-speaker-slot activity targets.

Meetings come as RTTM annotations plus frame features; chunks of 4-8 s are cut at random lengths and a
collator turns each chunk's segment list into frame-level speaker activity, an overlap mask and a
scoring-collar weight, padded to the longest chunk of the batch.
"""
import argparse
import heapq
import random
import runpy
from collections import defaultdict

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

import evalkit


# ----------------------------------------------------------------------------- corpus

def simulate_meeting(rng, name, minutes, pool, n_mels, hop):
    """Return (RTTM text, log-mel-like features [frames, n_mels] float32)."""
    n_spk = int(rng.integers(3, 7))
    speakers = sorted(rng.choice(pool, size=n_spk, replace=False).tolist())
    total = minutes * 60.0
    lines, t, current = [], 0.0, speakers[0]
    while t < total:
        dur = float(rng.exponential(1.4)) + 0.2
        if t + dur > total:
            dur = total - t
        lines.append((t, dur, current))
        if rng.random() < 0.45:  # backchannel / interruption overlapping the turn
            other = speakers[int(rng.integers(0, n_spk))]
            if other != current:
                start = t + float(rng.uniform(0, dur))
                lines.append((start, min(float(rng.uniform(0.2, 1.2)), total - start), other))
        t += dur + max(0.0, float(rng.normal(0.25, 0.4)))
        current = speakers[int(rng.integers(0, n_spk))]
    rttm = "\n".join(f"SPEAKER {name} 1 {s:.3f} {d:.3f} <NA> <NA> spk{spk:02d} <NA> <NA>"
                     for s, d, spk in sorted(lines))
    n_frames = int(total / hop)
    templates = {spk: rng.gamma(2.0, 1.0, n_mels) for spk in speakers}
    energy = np.full((n_frames, n_mels), 0.05)
    for s, d, spk in lines:
        a, b = int(s / hop), int((s + d) / hop)
        energy[a:b] += templates[spk] * float(rng.uniform(0.5, 1.5))
    feats = np.log(energy * rng.gamma(4.0, 0.25, size=energy.shape) + 1e-3).astype(np.float32)
    return rttm, feats


def parse_rttm(text):
    """RTTM lines -> {file id: [(onset, offset, speaker)]} sorted by onset."""
    out = defaultdict(list)
    for line in text.splitlines():
        fields = line.split()
        if not fields or fields[0] != "SPEAKER":
            continue
        onset, dur = float(fields[3]), float(fields[4])
        out[fields[1]].append((onset, onset + dur, fields[7]))
    return {k: sorted(v) for k, v in out.items()}


class MeetingChunks(Dataset):
    def __init__(self, s, seed):
        gen = np.random.default_rng(seed)
        self.hop = s["FRAME_HOP_S"]
        self.meetings, self.features = {}, {}
        for m in range(s["N_MEETINGS"]):
            name = f"ES20{m:02d}a"
            rttm, feats = simulate_meeting(gen, name, s["MEETING_MINUTES"], s["SPEAKER_POOL"], s["N_MELS"], self.hop)
            self.meetings.update(parse_rttm(rttm))
            self.features[name] = feats
        longest = max(s["CHUNK_SECONDS"])
        self.index = [(name, start) for name, feats in self.features.items()
                      for start in np.arange(0.0, len(feats) * self.hop - longest, s["CHUNK_STRIDE_S"]).tolist()]
        self.lengths = s["CHUNK_SECONDS"]
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        name, start = self.index[i]
        duration = self.rng.choice(self.lengths)
        stop = start + duration
        segments = [(max(on, start) - start, min(off, stop) - start, spk)
                    for on, off, spk in self.meetings[name] if on < stop and off > start]
        a = int(round(start / self.hop))
        feats = self.features[name][a:a + int(round(duration / self.hop))]
        return {"features": feats, "segments": segments, "duration": duration, "meeting": name}


# ----------------------------------------------------------------------------- collate

class DiarizationCollator:
    """Segment lists -> frame targets. Speakers get slots by first onset; with more than max_speakers in a
    chunk, the ones with the most speech are kept."""

    def __init__(self, hop, win, max_speakers, collar):
        self.hop, self.win, self.max_speakers, self.collar = hop, win, max_speakers, collar

    def speaker_slots(self, segments):
        speech, first = defaultdict(float), {}
        for on, off, spk in segments:
            speech[spk] += off - on
            first.setdefault(spk, on)
        kept = heapq.nlargest(self.max_speakers, sorted(speech), key=lambda spk: speech[spk])
        return {spk: k for k, spk in enumerate(sorted(kept, key=lambda spk: (first[spk], spk)))}

    def frame_targets(self, segments, n_frames, width):
        slots = self.speaker_slots(segments)
        bounds = sorted({b for on, off, _ in segments for b in (on, off)})
        activity, overlap, weight = [], [], []
        for f in range(width):
            row = [0.0] * self.max_speakers
            if f >= n_frames:
                activity.append(row)
                overlap.append(0.0)
                weight.append(0.0)
                continue
            t = f * self.hop + self.win / 2
            for on, off, spk in segments:
                if on <= t < off and spk in slots:
                    row[slots[spk]] = 1.0
            activity.append(row)
            overlap.append(1.0 if sum(row) >= 2 else 0.0)
            weight.append(0.0 if any(abs(t - b) < self.collar for b in bounds) else 1.0)
        return activity, overlap, weight, len(slots)

    def __call__(self, items):
        width = max(len(it["features"]) for it in items)
        n_mels = items[0]["features"].shape[1]
        feats = torch.zeros(len(items), width, n_mels)
        acts, ovls, wts, n_spk = [], [], [], []
        for i, it in enumerate(items):
            n = len(it["features"])
            feats[i, :n] = torch.from_numpy(it["features"])
            a, o, w, k = self.frame_targets(it["segments"], n, width)
            acts.append(a)
            ovls.append(o)
            wts.append(w)
            n_spk.append(k)
        return [feats, torch.tensor(acts), torch.tensor(ovls), torch.tensor(wts), torch.tensor(n_spk)]


# ----------------------------------------------------------------------------- model

class ConvEEND(nn.Module):
    def __init__(self, n_mels, max_speakers, width=16):
        super().__init__()
        self.body = nn.Sequential(nn.Conv1d(n_mels, width, 5, padding=2), nn.ReLU(),
                                  nn.Conv1d(width, width, 5, padding=4, dilation=2), nn.ReLU())
        self.activity = nn.Conv1d(width, max_speakers, 1)
        self.overlap = nn.Conv1d(width, 1, 1)

    def forward(self, feats):
        h = self.body(feats.transpose(1, 2))
        return self.activity(h).transpose(1, 2), self.overlap(h).squeeze(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--settings", required=True)
    args = ap.parse_args()
    s = runpy.run_path(args.settings)
    torch.set_num_threads(1)
    random.seed(s["SEED"])
    np.random.seed(s["SEED"])
    torch.manual_seed(s["SEED"])

    dataset = MeetingChunks(s, s["SEED"])
    collate = DiarizationCollator(s["FRAME_HOP_S"], s["FRAME_WIN_S"], s["MAX_SPEAKERS"], s["COLLAR_S"])
    loader = DataLoader(dataset, batch_size=s["BATCH_SIZE"], shuffle=s["SHUFFLE"], num_workers=s["NUM_WORKERS"],
                        collate_fn=collate, drop_last=True, generator=torch.Generator().manual_seed(s["SEED"]))
    model = ConvEEND(s["N_MELS"], s["MAX_SPEAKERS"])
    optim = torch.optim.Adam(model.parameters(), lr=s["LR"])
    bce = nn.BCEWithLogitsLoss(reduction="none")
    meter = evalkit.Meter()

    step, overlap_frames = 0, 0
    for epoch in range(s["EPOCHS"]):
        for feats, activity, overlap, weight, n_spk in loader:
            meter.batch([feats, activity, overlap, weight, n_spk])
            act_logits, ovl_logits = model(feats)
            w = weight.unsqueeze(-1)
            loss_act = (bce(act_logits, activity) * w).sum() / (w.sum() * activity.shape[-1]).clamp(min=1)
            loss_ovl = (bce(ovl_logits, overlap) * weight).sum() / weight.sum().clamp(min=1)
            loss = loss_act + s["OVERLAP_WEIGHT"] * loss_ovl
            optim.zero_grad()
            loss.backward()
            optim.step()
            meter.step(loss)
            step += 1
            overlap_frames += int(overlap.sum())
            if step % s["LOG_EVERY"] == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} (act {loss_act.item():.4f})")
            if meter.done():
                break
        if meter.done():
            break
    meter.report({"overlap_frames": overlap_frames, "steps": step})


if __name__ == "__main__":
    main()
