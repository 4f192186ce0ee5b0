"""Analytic sinograms of ellipse phantoms (Shepp-Logan style) with a planted lesion."""
import numpy as np

LESION_NONE, LESION_HYPER, LESION_HYPO = 0, 1, 2


def ellipse_projection(theta, t, x0, y0, a, b, phi, rho):
    """Line integrals of one uniform ellipse for every (angle, detector) pair."""
    th = theta[:, None]
    ct, st = np.cos(th - phi), np.sin(th - phi)
    s2 = (a * ct) ** 2 + (b * st) ** 2
    tp = t[None, :] - (x0 * np.cos(th) + y0 * np.sin(th))
    inside = tp ** 2 <= s2
    out = np.zeros((theta.size, t.size))
    out[inside] = (2.0 * rho * a * b / s2 * np.sqrt(np.maximum(s2 - tp ** 2, 0.0)))[inside]
    return out


def make_sinograms(n, n_angles, n_det, noise, seed):
    rng = np.random.default_rng(seed)
    theta = np.linspace(0.0, np.pi, n_angles, endpoint=False)
    t = np.linspace(-1.0, 1.0, n_det)
    sinos = np.empty((n, n_angles, n_det))
    labels = rng.integers(0, 3, size=n)
    for i in range(n):
        body_a, body_b = rng.uniform(0.70, 0.85), rng.uniform(0.55, 0.75)
        sino = ellipse_projection(theta, t, 0.0, 0.0, body_a, body_b, rng.uniform(-0.2, 0.2), 1.0)
        # two organs
        for _ in range(2):
            sino += ellipse_projection(theta, t, rng.uniform(-0.35, 0.35), rng.uniform(-0.3, 0.3),
                                       rng.uniform(0.12, 0.25), rng.uniform(0.08, 0.18),
                                       rng.uniform(0, np.pi), rng.uniform(-0.3, 0.3))
        if labels[i] != LESION_NONE:
            rho = 0.6 if labels[i] == LESION_HYPER else -0.45
            r = rng.uniform(0.06, 0.12)
            sino += ellipse_projection(theta, t, rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3),
                                       r, r * rng.uniform(0.7, 1.0), rng.uniform(0, np.pi), rho)
        sino += noise * rng.standard_normal(sino.shape)
        sinos[i] = sino
    return theta, t, sinos, labels
