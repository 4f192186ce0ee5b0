import numpy as np


def simulate(length, channels, seed):
    """Six SCADA channels (wind, rotor rpm, power, pitch, gearbox temp, vibration) with fault episodes."""
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    wind = 8 + 3 * np.sin(2 * np.pi * t / 4000) + np.cumsum(rng.normal(0, 0.05, length)).clip(-4, 4)
    rpm = 12 * np.tanh(wind / 9) + rng.normal(0, 0.2, length)
    power = np.clip(wind, 3, 14) ** 3 / 30 + rng.normal(0, 2, length)
    pitch = np.clip(wind - 12, 0, None) * 2 + rng.normal(0, 0.3, length)
    temp = 40 + 0.05 * power + rng.normal(0, 0.5, length)
    vib = rng.normal(0, 1, length)
    state = np.zeros(length, dtype=np.int64)
    pos = 0
    while pos < length:
        pos += int(rng.integers(600, 2400))
        kind = int(rng.integers(1, 4))
        dur = int(rng.integers(300, 900))
        seg = slice(pos, min(pos + dur, length))
        n = seg.stop - seg.start if seg.stop > seg.start else 0
        if n <= 0:
            break
        if kind == 1:   # bearing: vibration spikes
            vib[seg] += (rng.random(n) < 0.05) * rng.normal(6, 2, n)
        elif kind == 2:  # cooling: temperature drift
            temp[seg] += np.linspace(0, 12, n)
        else:            # pitch stuck
            pitch[seg] = pitch[seg.start]
        state[seg] = kind
        pos += dur
    X = np.stack([wind, rpm, power, pitch, temp, vib][:channels], axis=1).astype(np.float32)
    return X, state
