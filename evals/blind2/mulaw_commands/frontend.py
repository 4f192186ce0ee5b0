"""Log-mel front end (numpy): pre-emphasis, framing, Hann window, power spectrum, mel bands."""
import numpy as np


def hz_to_mel(f):
    return 2595.0 * np.log10(1.0 + f / 700.0)


def mel_to_hz(m):
    return 700.0 * (10.0 ** (m / 2595.0) - 1.0)


def mel_filterbank(n_mels, n_fft, sample_rate, fmin=20.0, fmax=None):
    fmax = fmax or sample_rate / 2
    mels = np.linspace(hz_to_mel(fmin), hz_to_mel(fmax), n_mels + 2)
    bins = np.floor((n_fft + 1) * mel_to_hz(mels) / sample_rate).astype(int)
    fb = np.zeros((n_mels, n_fft // 2 + 1), dtype=np.float32)
    for m in range(1, n_mels + 1):
        left, centre, right = bins[m - 1], bins[m], bins[m + 1]
        for k in range(left, centre):
            fb[m - 1, k] = (k - left) / max(centre - left, 1)
        for k in range(centre, right):
            fb[m - 1, k] = (right - k) / max(right - centre, 1)
    return fb


class LogMel:
    def __init__(self, sample_rate=8000, n_fft=256, win_length=200, hop_length=80, n_mels=40, preemph=0.97):
        self.n_fft = n_fft
        self.win_length = win_length
        self.hop_length = hop_length
        self.preemph = preemph
        self.window = np.hanning(win_length).astype(np.float32)
        self.fb = mel_filterbank(n_mels, n_fft, sample_rate)

    def __call__(self, wav: np.ndarray) -> np.ndarray:
        wav = np.append(wav[0], wav[1:] - self.preemph * wav[:-1]).astype(np.float32)
        n_frames = 1 + (len(wav) - self.win_length) // self.hop_length
        frames = np.lib.stride_tricks.sliding_window_view(wav, self.win_length)[::self.hop_length][:n_frames]
        spec = np.fft.rfft(frames * self.window, n=self.n_fft, axis=-1)
        power = (spec.real ** 2 + spec.imag ** 2).astype(np.float32)
        mel = power @ self.fb.T
        return np.log(mel + 1e-6).T.astype(np.float32)  # (n_mels, n_frames)
