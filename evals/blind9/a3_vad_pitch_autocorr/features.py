"""Frame-level voice activity detection and autocorrelation pitch on int16 PCM."""
import math

import torch


class FrameAnalyzer:
    """Per frame: log energy, zero-crossing rate, VAD flag (energy + ZCR with hangover),
    f0 from the autocorrelation peak in [sr/fmax, sr/fmin] and the peak's periodicity.

    Integer arithmetic on the PCM samples (DC removed per frame), so that the pitch track
    does not depend on float summation order.
    """

    def __init__(self, sample_rate, frame_length, hop_length, fmin, fmax,
                 energy_threshold, zcr_threshold, hangover):
        self.sample_rate = sample_rate
        self.frame_length = frame_length
        self.hop_length = hop_length
        self.fmax = fmax
        self.min_lag = int(sample_rate // fmax)
        self.max_lag = int(sample_rate // fmin)
        self.energy_threshold = energy_threshold
        self.zcr_threshold = zcr_threshold
        self.hangover = hangover

    def num_frames(self, num_samples):
        return 1 + (num_samples - self.frame_length) // self.hop_length

    def __call__(self, pcm):
        x = pcm.tolist()
        N = self.frame_length
        feats = []
        hang = 0
        for t in range(self.num_frames(len(x))):
            frame = x[t * self.hop_length: t * self.hop_length + N]
            mean = sum(frame) // N
            frame = [s - mean for s in frame]
            energy = sum(s * s for s in frame)
            zc = sum(1 for a, b in zip(frame, frame[1:]) if (a >= 0) != (b >= 0))

            if energy > self.energy_threshold * N and zc < self.zcr_threshold * N:
                voiced = True
                hang = self.hangover
            elif hang > 0:
                voiced = True
                hang -= 1
            else:
                voiced = False

            f0 = periodicity = 0.0
            if voiced and energy > 0:
                best_lag, best_r = 0, 0
                for lag in range(self.min_lag, self.max_lag + 1):
                    r = sum(frame[i] * frame[i + lag] for i in range(N - lag))
                    if r > best_r:
                        best_lag, best_r = lag, r
                if best_lag:
                    f0 = self.sample_rate / best_lag
                    periodicity = best_r / energy
            feats.append([math.log1p(energy / N), zc / N, 1.0 if voiced else 0.0, f0 / self.fmax, periodicity])
        return torch.tensor(feats, dtype=torch.float32)
