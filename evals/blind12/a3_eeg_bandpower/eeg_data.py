"""Synthetic EEG epochs stored the way an EDF reader hands them over: int16 digital samples per
channel plus a per-channel physical scale, with an event code per epoch."""
import math
import struct

import numpy as np

STATES = ("eyes_closed_rest", "mental_arithmetic", "drowsy", "n2_sleep")
# (delta, theta, alpha, beta) amplitude in microvolts for each state
STATE_AMPLITUDES = {
    0: (6.0, 5.0, 22.0, 4.0),
    1: (5.0, 6.0, 7.0, 12.0),
    2: (9.0, 16.0, 9.0, 4.0),
    3: (28.0, 9.0, 4.0, 3.0),
}
BAND_CENTRES = (2.0, 6.0, 10.5, 20.0)
RECORD = struct.Struct("<HHHf")  # event code, n_channels, n_samples, onset (s)


def synthesize_epochs(n_epochs, channels, sfreq, n_samples, seed):
    rng = np.random.default_rng(seed)
    n_ch = len(channels)
    t = np.arange(n_samples) / sfreq
    # occipital channels carry more alpha, frontal more eye artefacts
    occipital = np.array([1.8 if ch[0] == "O" else (1.3 if ch[0] == "P" else 1.0) for ch in channels])
    frontal = np.array([1.0 if ch.startswith("Fp") else 0.0 for ch in channels])
    gain = rng.uniform(0.08, 0.12, n_ch)          # microvolts per digital count
    offset = rng.uniform(-40.0, 40.0, n_ch)       # electrode DC offset, microvolts
    records, labels = [], []
    onset = 3.0
    for _ in range(n_epochs):
        state = int(rng.integers(len(STATES)))
        amps = STATE_AMPLITUDES[state]
        sig = np.zeros((n_ch, n_samples))
        for b, (amp, fc) in enumerate(zip(amps, BAND_CENTRES)):
            freqs = fc * rng.uniform(0.8, 1.2, n_ch)
            phase = rng.uniform(0, 2 * math.pi, n_ch)
            a = amp * rng.uniform(0.7, 1.3, n_ch) * (occipital if b == 2 else 1.0)
            sig += a[:, None] * np.sin(2 * math.pi * freqs[:, None] * t[None, :] + phase[:, None])
        pink = np.cumsum(rng.standard_normal((n_ch, n_samples)), axis=1) * 0.6
        common = 15.0 * np.sin(2 * math.pi * 50.0 * t + rng.uniform(0, 6.28)) + 8.0 * rng.standard_normal()
        blink = frontal[:, None] * rng.uniform(0, 80) * np.exp(-((t - rng.uniform(0, t[-1])) / 0.12) ** 2)[None, :]
        micro = sig + pink + common[None, :] + blink + offset[:, None] + 2.0 * rng.standard_normal((n_ch, n_samples))
        digital = np.clip(np.rint(micro / gain[:, None]), -32768, 32767).astype("<i2")
        records.append(RECORD.pack(state, n_ch, n_samples, onset) + digital.tobytes())
        labels.append(state)
        onset += n_samples / sfreq + float(rng.uniform(1.0, 3.0))
    return records, labels, gain, offset


def read_record(buf, gain, offset):
    code, n_ch, n_samples, onset = RECORD.unpack_from(buf, 0)
    digital = np.frombuffer(buf, dtype="<i2", offset=RECORD.size).reshape(n_ch, n_samples)
    return code, onset, digital.astype(np.float64) * gain[:, None] + offset[:, None]
