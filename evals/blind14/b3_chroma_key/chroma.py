"""Chroma features from a constant-Q-like filterbank, and Krumhansl-Schmuckler key estimation.

Pure-Python reference implementation (as in teaching notebooks): each frequency bin is a Hann-windowed
complex exponential whose length shrinks with frequency (constant Q), centred in the analysis frame.
"""
import math

PITCH_CLASSES = ("C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B")
# Krumhansl-Kessler probe-tone profiles, tonic first.
MAJOR_PROFILE = (6.35, 2.23, 3.48, 2.33, 4.38, 4.09, 2.52, 5.19, 2.39, 3.66, 2.29, 2.88)
MINOR_PROFILE = (6.33, 2.68, 3.52, 5.38, 2.60, 3.53, 2.54, 4.75, 3.98, 2.69, 3.34, 3.17)


def midi_to_hz(m):
    return 440.0 * 2.0 ** ((m - 69) / 12.0)


class ConstantQFilterbank:
    """n_bins semitone-spaced bins from MIDI note `midi_min`; kernel k has length min(frame, Q*sr/f_k)."""

    def __init__(self, sample_rate, midi_min, n_bins, frame_length):
        self.sample_rate = sample_rate
        self.frame_length = frame_length
        self.midi_min = midi_min
        self.n_bins = n_bins
        q = 1.0 / (2.0 ** (1.0 / 12.0) - 1.0)
        self.kernels = []  # (start offset in the frame, cos taps, sin taps)
        for k in range(n_bins):
            f = midi_to_hz(midi_min + k)
            n = min(frame_length, int(math.ceil(q * sample_rate / f)))
            start = (frame_length - n) // 2
            cos_taps, sin_taps = [], []
            for t in range(n):
                w = 0.5 - 0.5 * math.cos(2.0 * math.pi * t / (n - 1)) if n > 1 else 1.0
                phase = 2.0 * math.pi * f * t / sample_rate
                cos_taps.append(w * math.cos(phase) / n)
                sin_taps.append(-w * math.sin(phase) / n)
            self.kernels.append((start, cos_taps, sin_taps))

    def magnitudes(self, frame):
        """|X_k| for one frame (a list of floats of frame_length samples)."""
        out = []
        for start, cos_taps, sin_taps in self.kernels:
            re = 0.0
            im = 0.0
            for t in range(len(cos_taps)):
                x = frame[start + t]
                re += x * cos_taps[t]
                im += x * sin_taps[t]
            out.append(math.sqrt(re * re + im * im))
        return out


def chromagram(samples, filterbank, hop_length, n_frames, offset=0):
    """Fold constant-Q magnitudes into 12 pitch classes per frame, each frame max-normalised.

    samples: list of floats; frames start at offset + i * hop_length.
    Returns a list of n_frames lists of 12 floats (C first).
    """
    first_pc = filterbank.midi_min % 12
    frames = []
    for i in range(n_frames):
        lo = offset + i * hop_length
        mags = filterbank.magnitudes(samples[lo:lo + filterbank.frame_length])
        chroma = [0.0] * 12
        for k, m in enumerate(mags):
            chroma[(first_pc + k) % 12] += m
        peak = max(chroma)
        if peak > 0.0:
            chroma = [c / peak for c in chroma]
        frames.append(chroma)
    return frames


def _pearson(a, b):
    ma = sum(a) / len(a)
    mb = sum(b) / len(b)
    num = sum((x - ma) * (y - mb) for x, y in zip(a, b))
    den = math.sqrt(sum((x - ma) ** 2 for x in a) * sum((y - mb) ** 2 for y in b))
    return num / den if den > 0 else 0.0


def estimate_key(frames):
    """Krumhansl-Schmuckler: correlate the mean chroma with the 24 rotated profiles.

    Returns the key index: 0..11 major (tonic pitch class), 12..23 minor. Ties keep the first key.
    """
    n = len(frames)
    profile = [sum(f[pc] for f in frames) / n for pc in range(12)]
    best, best_r = 0, -2.0
    for mode, template in enumerate((MAJOR_PROFILE, MINOR_PROFILE)):
        for tonic in range(12):
            rotated = [template[(pc - tonic) % 12] for pc in range(12)]
            r = _pearson(profile, rotated)
            if r > best_r:
                best, best_r = mode * 12 + tonic, r
    return best
