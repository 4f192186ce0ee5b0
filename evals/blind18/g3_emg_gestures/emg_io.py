"""Raw sEMG trial files as they come off an 8-channel amplifier: a header and interleaved int16 samples."""
import math
import struct
import zlib

import numpy as np

HEADER = struct.Struct("<4sBHIf")  # magic, channels, sample_rate, n_samples, gain (uV per LSB)
MAGIC = b"sEMG"


def synth_trial(rng, gesture, n_channels, rate, n_samples, gain_uv):
    """Band-limited muscle activity with a gesture-specific channel pattern, DC offset and mains hum."""
    t = np.arange(n_samples) / rate
    pattern = 0.15 + 0.85 * np.abs(np.sin(np.arange(n_channels) * (gesture + 1) * 0.7))
    onset = rng.uniform(0.2, 0.5)
    activation = 1.0 / (1.0 + np.exp(-(t - onset) * 25.0))
    noise = rng.normal(0.0, 1.0, (n_channels, n_samples + 8))
    kernel = np.array([0.05, 0.1, 0.2, 0.3, 0.2, 0.1, 0.05, -0.5, -0.5])  # crude band-pass
    band = np.stack([np.convolve(ch, kernel, mode="valid") for ch in noise])
    mv = 0.4 * pattern[:, None] * activation[None, :] * band
    mv += 0.02 * np.sin(2 * math.pi * 50.0 * t + rng.uniform(0, 2 * math.pi))[None, :]
    mv += rng.normal(0.0, 0.05, (n_channels, 1))  # electrode DC offset
    counts = np.clip(np.round(mv * 1000.0 / gain_uv), -32768, 32767).astype("<i2")
    return counts


def encode_trial(counts, rate, gain_uv):
    n_channels, n_samples = counts.shape
    payload = zlib.compress(counts.T.tobytes())  # interleaved: s0c0 s0c1 ... s1c0 ...
    return HEADER.pack(MAGIC, n_channels, rate, n_samples, gain_uv) + payload


def decode_trial(blob):
    magic, n_channels, rate, n_samples, gain_uv = HEADER.unpack_from(blob)
    if magic != MAGIC:
        raise ValueError("bad sEMG header")
    counts = np.frombuffer(zlib.decompress(blob[HEADER.size:]), dtype="<i2").reshape(n_samples, n_channels)
    return counts.T, rate, gain_uv
