"""LPC front end in the style of torchaudio.transforms: a Module mapping a waveform to features.

Pre-emphasis y[n] = x[n] - c x[n-1], Hamming-windowed frames, the biased autocorrelation
r[0..p] of each frame, and the Levinson-Durbin recursion for the predictor a[1..p] and the
prediction error. Output per frame: a[1..p] and log(error + eps), i.e. (frames, p + 1).
"""
import math

import torch


def hamming(n):
    return [0.54 - 0.46 * math.cos(2.0 * math.pi * k / (n - 1)) for k in range(n)]


def autocorrelation(frame, max_lag):
    n = len(frame)
    r = []
    for lag in range(max_lag + 1):
        acc = 0.0
        for i in range(n - lag):
            acc += frame[i] * frame[i + lag]
        r.append(acc)
    return r


def levinson_durbin(r, order):
    """Solve the Toeplitz normal equations; returns ([1, a1..ap], prediction error)."""
    a = [1.0] + [0.0] * order
    err = r[0]
    if err <= 0.0:  # digital silence: flat predictor, no energy
        return a, 0.0
    for i in range(1, order + 1):
        acc = r[i]
        for j in range(1, i):
            acc += a[j] * r[i - j]
        k = -acc / err
        prev = a[:]
        for j in range(1, i):
            a[j] = prev[j] + k * prev[i - j]
        a[i] = k
        err *= 1.0 - k * k
        if err <= 0.0:  # numerically singular: keep what we have
            break
    return a, err


class LPC(torch.nn.Module):
    def __init__(self, frame_length=200, hop_length=80, order=12, preemphasis=0.97, eps=1e-10):
        super().__init__()
        self.frame_length = frame_length
        self.hop_length = hop_length
        self.order = order
        self.preemphasis = preemphasis
        self.eps = eps

    def num_frames(self, num_samples):
        return 0 if num_samples < self.frame_length else 1 + (num_samples - self.frame_length) // self.hop_length

    def forward(self, waveform):
        x = waveform.double().tolist()
        c = self.preemphasis
        emph = [x[0]] + [cur - c * prev for prev, cur in zip(x, x[1:])]
        rows = []
        for start in range(0, len(emph) - self.frame_length + 1, self.hop_length):
            window = hamming(self.frame_length)
            frame = [s * w for s, w in zip(emph[start:start + self.frame_length], window)]
            a, err = levinson_durbin(autocorrelation(frame, self.order), self.order)
            rows.append(a[1:] + [err])
        feats = torch.tensor(rows, dtype=torch.float64).reshape(-1, self.order + 1)
        feats[:, -1] = torch.log(feats[:, -1] + self.eps)
        return feats.float()

    def extra_repr(self):
        return (f"frame_length={self.frame_length}, hop_length={self.hop_length}, order={self.order}, "
                f"preemphasis={self.preemphasis}")
