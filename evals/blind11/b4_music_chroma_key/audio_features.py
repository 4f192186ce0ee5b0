"""torchaudio-style feature modules: Spectrogram magnitude and chroma folding."""
import math

import torch


class Spectrogram(torch.nn.Module):
    """|STFT| with a periodic Hann window (center=True, reflect padding), like torchaudio.transforms.Spectrogram(power=1)."""

    def __init__(self, n_fft=1024, hop_length=512):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.register_buffer("window", torch.hann_window(n_fft))

    def forward(self, waveform):
        spec = torch.stft(waveform, self.n_fft, self.hop_length, window=self.window, center=True,
                          pad_mode="reflect", return_complex=True)
        return spec.abs()


class ChromaFold:
    """Fold an (n_fft // 2 + 1, frames) magnitude spectrogram into 12 pitch classes per frame.

    Each FFT bin between fmin and fmax goes to the pitch class of its nearest equal-tempered
    note (A4 = 440 Hz); each frame is then L2-normalised.
    """

    def __init__(self, sample_rate, n_fft, fmin=65.0, fmax=5000.0, eps=1e-10):
        self.sample_rate = sample_rate
        self.n_fft = n_fft
        self.fmin, self.fmax, self.eps = fmin, fmax, eps

    def pitch_class(self, k):
        freq = k * self.sample_rate / self.n_fft
        if freq < self.fmin or freq > self.fmax:
            return None
        midi = 69.0 + 12.0 * math.log2(freq / 440.0)
        return int(round(midi)) % 12

    def __call__(self, magnitude):
        frames = []
        for frame in magnitude.T.tolist():
            chroma = [0.0] * 12
            for k, value in enumerate(frame):
                pc = self.pitch_class(k)
                if pc is not None:
                    chroma[pc] += value
            sq = 0.0
            for c in chroma:
                sq += c * c
            norm = math.sqrt(sq)
            frames.append([c / norm for c in chroma] if norm > self.eps else [0.0] * 12)
        return torch.tensor(frames, dtype=torch.float32).T.contiguous()  # (12, frames)
