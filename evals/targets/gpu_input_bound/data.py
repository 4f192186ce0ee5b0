"""Synthetic bird-call clips and their log-spectrogram front end, computed per clip."""
import numpy as np
import torch
from torch.utils.data import Dataset


def make_clips(n_clips, clip_len, n_classes, sample_rate, seed):
    """Noise plus a class-specific chirp: the class lives in the time-frequency pattern."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n_classes, size=n_clips)
    t = np.arange(clip_len, dtype=np.float64) / sample_rate
    clips = rng.standard_normal((n_clips, clip_len), dtype=np.float32)
    clips *= 0.5
    for c in range(n_classes):
        f0, f1 = 400.0 + 300.0 * c, 1200.0 + 250.0 * c
        phase = 2 * np.pi * (f0 * t + 0.5 * (f1 - f0) * t * t / t[-1])
        clips[labels == c] += np.sin(phase).astype(np.float32)
    return clips, labels


def log_spectrogram(clip, frame_len, hop, n_bins):
    """Hann-windowed magnitude spectrum per frame, pooled to n_bins bands, log-compressed, normalised."""
    frames = np.lib.stride_tricks.sliding_window_view(clip, frame_len)[::hop]
    spectrum = np.abs(np.fft.rfft(frames * np.hanning(frame_len), axis=1))
    usable = spectrum.shape[1] - spectrum.shape[1] % n_bins
    bands = spectrum[:, :usable].reshape(len(frames), n_bins, -1).mean(axis=2)
    feats = np.log1p(bands)
    return (feats - feats.mean()) / (feats.std() + 1e-6)


class ClipDataset(Dataset):
    def __init__(self, n_clips, clip_len, frame_len, hop, n_bins, n_classes, sample_rate, seed):
        self.clips, self.labels = make_clips(n_clips, clip_len, n_classes, sample_rate, seed)
        self.frame_len, self.hop, self.n_bins = frame_len, hop, n_bins
        self.n_frames = (clip_len - frame_len) // hop + 1

    def __len__(self):
        return len(self.clips)

    def __getitem__(self, i):
        feats = log_spectrogram(self.clips[i], self.frame_len, self.hop, self.n_bins)
        return torch.from_numpy(feats.astype(np.float32)), int(self.labels[i])
