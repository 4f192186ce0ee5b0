"""Synthetic single-lead ECG beats with the 15 MIT-BIH beat annotation symbols, 187 samples at 125 Hz."""
import numpy as np
import torch

# MIT-BIH beat annotations and their AAMI superclass
SYMBOLS = ["N", "L", "R", "e", "j", "A", "a", "J", "S", "V", "E", "F", "/", "f", "Q"]
AAMI_OF = {"N": "N", "L": "N", "R": "N", "e": "N", "j": "N", "A": "S", "a": "S", "J": "S", "S": "S",
           "V": "V", "E": "V", "F": "F", "/": "Q", "f": "Q", "Q": "Q"}


def _wave(t, centre, width, amp):
    return amp * np.exp(-0.5 * ((t - centre) / width) ** 2)


def make_beats(n, length, mix, seed):
    rng = np.random.default_rng(seed)
    n_cls = len(SYMBOLS)
    # morphology of each beat type: P amplitude, P shift, QRS width, QRS sign, T amplitude, paced spike
    table = np.column_stack([
        rng.uniform(0.0, 0.2, n_cls), rng.uniform(-14.0, 2.0, n_cls), rng.uniform(2.5, 9.0, n_cls),
        np.where(rng.random(n_cls) < 0.25, -0.8, 1.0), rng.uniform(-0.3, 0.4, n_cls),
        (np.arange(n_cls) == SYMBOLS.index("/")) * 1.0,
    ])
    p = np.asarray(mix, dtype=np.float64)
    y = rng.choice(n_cls, size=n, p=p / p.sum())
    t = np.arange(length, dtype=np.float64)
    x = np.empty((n, length), dtype=np.float32)
    for i in range(n):
        p_amp, p_shift, qrs_w, qrs_sign, t_amp, paced = table[y[i]]
        sig = (_wave(t, 40 + p_shift + rng.normal(0, 2.0), 6.0, p_amp * rng.uniform(0.6, 1.4))
               + _wave(t, 70, qrs_w * rng.uniform(0.85, 1.15), qrs_sign * rng.uniform(0.8, 1.2))
               + _wave(t, 120 + rng.normal(0, 4), 12.0, t_amp * rng.uniform(0.7, 1.3))
               + paced * _wave(t, 62, 0.8, 0.9))
        x[i] = sig + rng.normal(0, 0.04, length) + np.linspace(0, rng.normal(0, 0.1), length)
    return torch.from_numpy(x).unsqueeze(1), torch.from_numpy(y.astype(np.int64))
