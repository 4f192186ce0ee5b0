"""Forward model for a toy ground-penetrating radar survey line.

A B-scan is stored as (n_samples, n_traces): time runs down the rows, the antenna
moves along the columns.  Each scan holds the direct/ground-coupling wave, a couple of
flat soil layers, a slow "wow" drift and, for the positive class, the diffraction
hyperbola of a buried point-like object (pipe, rebar, mine...).
"""
import numpy as np


def ricker(t, f_ghz):
    a = (np.pi * f_ghz * t) ** 2
    return (1.0 - 2.0 * a) * np.exp(-a)


def simulate_bscan(rng, n_traces, n_samples, dx, dt, velocity, has_object, noise_std):
    t = np.arange(n_samples) * dt                       # ns
    x = np.arange(n_traces) * dx                        # m
    f0 = rng.uniform(0.35, 0.5)                         # centre frequency, GHz
    scan = np.zeros((n_samples, n_traces))

    # direct wave + ground reflection: flat, strong, same in every trace
    t_ground = rng.uniform(1.5, 3.0)
    scan += 1.5 * ricker(t[:, None] - t_ground, f0)

    # a few soil layers with a gentle dip
    for _ in range(rng.integers(1, 3)):
        t_layer = rng.uniform(6.0, t[-1] - 2.0)
        dip = rng.uniform(-4.0, 4.0)
        amp = rng.uniform(0.15, 0.4)
        scan += amp * ricker(t[:, None] - (t_layer + dip * (x[None, :] - x.mean())), f0)

    if has_object:
        v = velocity * rng.uniform(0.9, 1.1)
        depth = rng.uniform(0.25, 0.85)
        x0 = rng.uniform(0.25, 0.75) * x[-1]
        t_hyp = t_ground + 2.0 * np.sqrt(depth ** 2 + (x - x0) ** 2) / v
        amp = rng.uniform(0.35, 0.9) / (1.0 + depth)
        scan += amp * ricker(t[:, None] - t_hyp[None, :], f0)

    # low-frequency wow: each trace drifts differently
    wow_amp = rng.uniform(0.2, 0.6, size=n_traces)
    wow_tau = rng.uniform(4.0, 12.0, size=n_traces)
    scan += wow_amp[None, :] * (1.0 - np.exp(-t[:, None] / wow_tau[None, :]))

    scan += noise_std * rng.standard_normal(scan.shape)
    return scan
