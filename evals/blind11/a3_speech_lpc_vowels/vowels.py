"""Synthetic sustained-vowel recordings, kept as 16-bit PCM WAV bytes."""
import struct

import numpy as np
import torch
from torch.utils.data import Dataset

VOWELS = {  # F1, F2, F3 (Hz), adult speaker averages
    "a": (730, 1090, 2440), "e": (530, 1840, 2480), "i": (270, 2290, 3010),
    "o": (570, 840, 2410), "u": (300, 870, 2240),
}
LABELS = sorted(VOWELS)


def wav_bytes(samples, sample_rate):
    data = samples.astype("<i2").tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(data), b"WAVE", b"fmt ", 16, 1, 1,
                         sample_rate, sample_rate * 2, 2, 16, b"data", len(data))
    return header + data


def read_wav(blob):
    riff, _, wave = struct.unpack_from("<4sI4s", blob, 0)
    if riff != b"RIFF" or wave != b"WAVE":
        raise ValueError("not a WAV file")
    pos = 12
    sample_rate = None
    while pos < len(blob):
        chunk, size = struct.unpack_from("<4sI", blob, pos)
        if chunk == b"fmt ":
            _, channels, sample_rate = struct.unpack_from("<HHI", blob, pos + 8)
        elif chunk == b"data":
            pcm = np.frombuffer(blob, dtype="<i2", count=size // 2, offset=pos + 8)
            return torch.from_numpy(pcm.astype(np.float32) / 32768.0), sample_rate
        pos += 8 + size
    raise ValueError("no data chunk")


def synth_vowel(rng, vowel, n, sample_rate):
    f0 = rng.uniform(90, 240)
    formants = np.array(VOWELS[vowel]) * rng.uniform(0.92, 1.08, 3)
    bandwidths = np.array([80.0, 110.0, 160.0])
    t = np.arange(n) / sample_rate
    vibrato = 1.0 + 0.01 * np.sin(2 * np.pi * rng.uniform(4, 6) * t)
    phase = 2 * np.pi * np.cumsum(f0 * vibrato) / sample_rate
    out = np.zeros(n)
    for h in range(1, int(sample_rate / 2 / f0)):
        f = h * f0
        gain = sum(1.0 / np.sqrt(1.0 + ((f - fc) / bw) ** 2) for fc, bw in zip(formants, bandwidths)) / h
        out += gain * np.sin(h * phase + rng.uniform(0, 2 * np.pi))
    out *= np.minimum(1.0, np.minimum(t, t[::-1]) / 0.03)  # 30 ms fades
    out += 0.003 * rng.standard_normal(n)
    out = out / np.abs(out).max() * rng.uniform(0.2, 0.7)
    pcm = np.round(out * 32767).astype(np.int64)
    # recorder gating: digital silence before, after and sometimes inside the token
    lead, tail = rng.integers(0, n // 4, 2)
    pcm[:lead] = 0
    pcm[n - tail:] = 0
    if rng.random() < 0.3:
        g0 = rng.integers(n // 3, n // 2)
        pcm[g0:g0 + rng.integers(400, 1200)] = 0
    return pcm


class VowelDataset(Dataset):
    def __init__(self, num_utterances, sample_rate, clip_seconds, crop_seconds, gain_db, seed, frontend):
        rng = np.random.default_rng(seed)
        n = int(round(clip_seconds * sample_rate))
        self.crop = int(round(crop_seconds * sample_rate))
        self.gain_db = gain_db
        self.frontend = frontend
        self.items = []
        for k in range(num_utterances):
            label = k % len(LABELS)
            self.items.append((wav_bytes(synth_vowel(rng, LABELS[label], n, sample_rate), sample_rate), label))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        blob, label = self.items[index]
        wave, _ = read_wav(blob)
        start = int(torch.randint(0, wave.numel() - self.crop + 1, (1,)))
        wave = wave[start:start + self.crop]
        lo, hi = self.gain_db
        gain = 10.0 ** (float(torch.empty(1).uniform_(lo, hi)) / 20.0)
        return self.frontend(wave * gain), label


def collate_lpc(batch):
    feats = [f for f, _ in batch]
    lengths = torch.tensor([f.shape[0] for f in feats], dtype=torch.long)
    padded = torch.nn.utils.rnn.pad_sequence(feats, batch_first=True)
    labels = torch.tensor([y for _, y in batch], dtype=torch.long)
    return [padded, lengths, labels]
