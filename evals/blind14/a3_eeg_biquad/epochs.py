"""Synthetic multi-channel EEG recordings and a stream of labelled, filtered epochs."""
import math

import numpy as np
import torch
from torch.utils.data import IterableDataset, get_worker_info

from filters import Biquad, SOSCascade, band_powers


def make_recordings(n_recordings, n_channels, fs, duration_s, block_s, seed):
    """Int16 ADC recordings (like EDF records) with eyes-open / eyes-closed blocks.

    Returns [(digital (C, T) int16, gain_uV_per_bit, labels per sample)]."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(duration_s * fs)) / fs
    out = []
    for _ in range(n_recordings):
        n_blocks = int(math.ceil(duration_s / block_s))
        states = rng.integers(0, 2, size=n_blocks)
        label = np.repeat(states, int(block_s * fs))[: t.size]
        alpha_amp = np.where(label == 1, 22.0, 6.0)
        sig = np.empty((n_channels, t.size))
        for c in range(n_channels):
            occipital = 0.4 + 0.6 * (c / max(n_channels - 1, 1))
            pink = np.cumsum(rng.normal(0, 1.0, t.size)) * 0.4
            pink -= np.convolve(pink, np.ones(64) / 64, mode="same")
            sig[c] = (occipital * alpha_amp * np.sin(2 * np.pi * rng.uniform(9, 11.5) * t + rng.uniform(0, 6.3))
                      + 5.0 * np.sin(2 * np.pi * rng.uniform(15, 25) * t + rng.uniform(0, 6.3))
                      + 8.0 * np.sin(2 * np.pi * rng.uniform(4, 7) * t)
                      + 15.0 * np.sin(2 * np.pi * 50.0 * t + rng.uniform(0, 6.3))  # mains
                      + 20.0 * np.sin(2 * np.pi * 0.3 * t)  # electrode drift
                      + pink + rng.normal(0, 4.0, t.size))
        for _ in range(int(duration_s / 8)):  # eye blinks on the frontal channels
            at = rng.integers(0, t.size - fs)
            blink = 180.0 * np.hanning(fs // 3)
            sig[: max(2, n_channels // 4), at:at + blink.size] += blink
        gain = 0.125
        out.append((np.clip(np.rint(sig / gain), -32768, 32767).astype(np.int16), gain, label))
    return out


class EEGEpochStream(IterableDataset):
    """Draws epochs at random onsets; each comes with `pad` samples of history to settle the filters."""

    def __init__(self, recordings, fs, epoch_len, pad, filter_cfg, artifact_uv, samples_per_pass, seed):
        self.recordings = recordings
        self.fs, self.epoch_len, self.pad = fs, epoch_len, pad
        self.chain = SOSCascade([
            Biquad.notch(filter_cfg["notch_hz"], fs, filter_cfg["notch_q"]),
            Biquad.highpass(filter_cfg["highpass_hz"], fs),
            Biquad.lowpass(filter_cfg["lowpass_hz"], fs),
        ])
        self.artifact_uv = artifact_uv
        self.samples_per_pass = samples_per_pass
        self.generator = torch.Generator().manual_seed(seed)

    def _raw_window(self, rec_idx, onset):
        digital, gain, labels = self.recordings[rec_idx]
        raw = digital[:, onset - self.pad: onset + self.epoch_len].astype(np.float64) * gain
        label = int(labels[onset + self.epoch_len // 2])
        return raw, label

    def __iter__(self):
        assert get_worker_info() is None, "the epoch stream is meant for num_workers=0"
        g = self.generator
        for _ in range(self.samples_per_pass):
            rec_idx = int(torch.randint(len(self.recordings), (1,), generator=g))
            n = self.recordings[rec_idx][0].shape[1]
            onset = int(torch.randint(self.pad, n - self.epoch_len, (1,), generator=g))
            amp = 1.0 + 0.1 * (2.0 * float(torch.rand(1, generator=g)) - 1.0)
            raw, label = self._raw_window(rec_idx, onset)
            filtered = np.array([self.chain(ch.tolist())[self.pad:] for ch in raw]) * amp
            flags = []
            for ch in filtered:
                peak = max(abs(v) for v in ch)
                flags.append(1.0 if peak > self.artifact_uv else 0.0)
            yield {"signal": filtered, "bands": band_powers(filtered, self.fs), "flags": flags, "label": label}
