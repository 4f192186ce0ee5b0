"""Synthetic wrist accelerometer nights (raw int16 samples, like a device's binary dump)."""
import numpy as np

# per-state activity: (probability of staying, movement amplitude in g)
_STATES = {0: (0.93, 0.012), 1: (0.85, 0.22)}   # 0 sleep, 1 wake


def simulate_window(rng, n_epochs, samples_per_epoch, lsb_per_g):
    states = np.empty(n_epochs, dtype=np.int64)
    state = int(rng.random() < 0.35)
    stay = rng.random(n_epochs)
    for e in range(n_epochs):
        states[e] = state
        if stay[e] > _STATES[state][0]:
            state = 1 - state
    amp = np.where(states == 1, _STATES[1][1], _STATES[0][1]) * rng.uniform(0.5, 1.5, size=n_epochs)
    amp = np.repeat(amp, samples_per_epoch).astype(np.float32)
    # slowly drifting wrist orientation (gravity vector), plus movement
    n = n_epochs * samples_per_epoch
    theta = np.float32(rng.uniform(0, np.pi)) + np.cumsum(amp * 0.002, dtype=np.float32)
    gravity = np.stack([np.sin(theta), np.cos(theta) * 0.6, np.cos(theta) * 0.8], axis=1)
    motion = amp[:, None] * rng.standard_normal((n, 3), dtype=np.float32)
    raw = np.clip(np.rint((gravity + motion) * lsb_per_g), -32768, 32767).astype(np.int16)
    return raw, states
