"""Classic GPR processing chain: dewow -> background removal -> gain -> migration."""
import numpy as np


def dewow(bscan, window):
    """Remove the low-frequency 'wow' by subtracting a running mean from every trace."""
    n_samples, n_traces = bscan.shape
    kernel = np.ones(window) / window
    out = np.empty_like(bscan)
    for i in range(n_traces):
        trace = bscan[:, i]
        out[:, i] = trace - np.convolve(trace, kernel, mode="same")
    return out


def remove_background(bscan):
    """Subtract the mean trace (kills the flat direct wave and horizontal ringing)."""
    return bscan - bscan.mean(axis=1, keepdims=True)


def time_gain(bscan, dt, power):
    t = (np.arange(bscan.shape[0]) + 1) * dt
    return bscan * (t ** power)[:, None]


def kirchhoff_migrate(bscan, dx, dt, velocity, half_aperture):
    """Diffraction-summation (Kirchhoff-style) migration.

    Every output sample (t0, x) is the weighted sum of the input along the diffraction
    hyperbola t(h) = 2 * sqrt(z^2 + h^2) / v with z = v * t0 / 2, over the traces within
    +-half_aperture of x.  The weight is the obliquity factor cos(theta) = t0 / t.
    """
    n_samples, n_traces = bscan.shape
    out = np.zeros_like(bscan)
    t0 = np.arange(n_samples) * dt
    z = velocity * t0 / 2.0
    for ix in range(n_traces):
        for k in range(-half_aperture, half_aperture + 1):
            jx = ix + k
            if jx < 0 or jx >= n_traces:
                continue
            h = k * dx
            t = 2.0 * np.sqrt(z * z + h * h) / velocity
            it = np.rint(t / dt).astype(np.int64)
            valid = it < n_samples
            w = np.divide(t0, t, out=np.ones_like(t0), where=t > 0)
            out[valid, ix] += w[valid] * bscan[it[valid], jx]
    return out


def normalise(bscan):
    peak = np.abs(bscan).max()
    return bscan / peak if peak > 0 else bscan
