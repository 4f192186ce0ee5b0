"""MFCC front end written out step by step (pre-emphasis, framing, Hamming window,
power spectrum, triangular mel filterbank, log, DCT-II, cepstral mean normalisation)."""
import math

import numpy as np


def hz_to_mel(f):
    return 2595.0 * math.log10(1.0 + f / 700.0)


def mel_to_hz(m):
    return 700.0 * (10.0 ** (m / 2595.0) - 1.0)


def hamming(n):
    return [0.54 - 0.46 * math.cos(2.0 * math.pi * i / (n - 1)) for i in range(n)]


def mel_filterbank(n_mels, n_fft, sr, fmin, fmax):
    """HTK-style triangles as a list of n_mels rows of n_fft // 2 + 1 weights."""
    n_bins = n_fft // 2 + 1
    lo, hi = hz_to_mel(fmin), hz_to_mel(fmax)
    mel_points = [lo + (hi - lo) * i / (n_mels + 1) for i in range(n_mels + 2)]
    hz_points = [mel_to_hz(m) for m in mel_points]
    bin_hz = [k * sr / n_fft for k in range(n_bins)]
    bank = []
    for m in range(1, n_mels + 1):
        left, centre, right = hz_points[m - 1], hz_points[m], hz_points[m + 1]
        row = []
        for f in bin_hz:
            if left <= f <= centre:
                row.append((f - left) / (centre - left))
            elif centre < f <= right:
                row.append((right - f) / (right - centre))
            else:
                row.append(0.0)
        bank.append(row)
    return bank


def dct_matrix(n_mfcc, n_mels):
    """Orthonormal DCT-II rows."""
    rows = []
    for k in range(n_mfcc):
        scale = math.sqrt(1.0 / n_mels) if k == 0 else math.sqrt(2.0 / n_mels)
        rows.append([scale * math.cos(math.pi * k * (2 * m + 1) / (2 * n_mels)) for m in range(n_mels)])
    return rows


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


class MFCC:
    def __init__(self, fc, sample_rate):
        self.fc = fc
        self.window = hamming(fc.frame_length)
        self.fbank = mel_filterbank(fc.n_mels, fc.n_fft, sample_rate, fc.fmin, fc.fmax)
        self.dct = dct_matrix(fc.n_mfcc, fc.n_mels)

    def frames(self, samples):
        """Pre-emphasised, windowed frames (a list of lists)."""
        fl, hop, a = self.fc.frame_length, self.fc.hop_length, self.fc.preemphasis
        emph = [samples[0]] + [samples[i] - a * samples[i - 1] for i in range(1, len(samples))]
        out = []
        start = 0
        while start + fl <= len(emph):
            out.append([s * w for s, w in zip(emph[start:start + fl], self.window)])
            start += hop
        return out

    def power_spectrum(self, frames):
        spec = np.fft.rfft(np.asarray(frames, dtype=np.float64), n=self.fc.n_fft, axis=1)
        return ((spec.real ** 2 + spec.imag ** 2) / self.fc.n_fft).tolist()

    def __call__(self, samples):
        """samples: list of floats -> list of n_frames rows of n_mfcc coefficients."""
        power = self.power_spectrum(self.frames(samples))
        feats = []
        for row in power:
            log_mel = [math.log(dot(filt, row) + 1e-10) for filt in self.fbank]
            feats.append([dot(basis, log_mel) for basis in self.dct])
        if self.fc.cmn:
            n = len(feats)
            means = [sum(col) / n for col in zip(*feats)]
            feats = [[v - mu for v, mu in zip(row, means)] for row in feats]
        return feats
