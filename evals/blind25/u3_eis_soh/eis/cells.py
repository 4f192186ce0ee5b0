"""Synthetic EIS sweeps of aged lithium-ion cells.

Equivalent circuit per cell: L + R0 + (Rct || CPE(Q, alpha)) + Warburg(sigma). Ageing (lower
state of health) raises R0 and Rct, flattens the arc (alpha) and steepens diffusion. Each cell
gets one sweep from f_max down to f_min, log-spaced, highest frequency first (as potentiostats
record them).
"""
import numpy as np


def sweep_frequencies(f_max, f_min, n_points):
    return np.logspace(np.log10(f_max), np.log10(f_min), n_points)


def make_cells(n_cells, freqs, seed):
    rng = np.random.default_rng(seed)
    soh = rng.uniform(0.65, 1.0, n_cells)
    wear = 1.0 - soh
    r0 = 0.018 + 0.05 * wear + rng.normal(0, 0.0015, n_cells)
    rct = 0.012 + 0.11 * wear ** 1.3 + rng.normal(0, 0.002, n_cells).clip(-0.004, 0.004)
    q = 2.0 * np.exp(rng.normal(0, 0.15, n_cells)) * (1.0 - 0.5 * wear)
    alpha = 0.88 - 0.25 * wear + rng.normal(0, 0.01, n_cells)
    sigma = 0.004 + 0.03 * wear + rng.normal(0, 0.0007, n_cells).clip(-0.001, 0.001)
    ind = 2.5e-7 * np.exp(rng.normal(0, 0.1, n_cells))
    w = 2 * np.pi * freqs[None, :]
    jw = 1j * w
    z_cpe = 1.0 / (q[:, None] * jw ** alpha[:, None])
    z_arc = 1.0 / (1.0 / rct[:, None] + 1.0 / z_cpe)
    z_w = sigma[:, None] * (1 - 1j) / np.sqrt(w)
    z = jw * ind[:, None] + r0[:, None] + z_arc + z_w
    return z.real.copy(), z.imag.copy(), soh.astype(np.float32)
