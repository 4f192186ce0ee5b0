"""Event-camera simulator: textured scene under an affine motion field over one time slice."""
import numpy as np


def simulate_slice(rng, height, width, n_events, duration_us=50_000):
    a, d = rng.normal(0.0, 6.0, 2)  # translation (px per slice)
    b, c, e, f = rng.normal(0.0, 0.08, 4)  # linear part (zoom / rotation / shear)
    cx, cy = (width - 1) / 2.0, (height - 1) / 2.0
    x0 = rng.uniform(0, width, n_events)
    y0 = rng.uniform(0, height, n_events)
    u = a + b * (x0 - cx) + c * (y0 - cy)
    v = d + e * (x0 - cx) + f * (y0 - cy)
    frac = np.sort(rng.uniform(0.0, 1.0, n_events))
    x = np.clip(np.rint(x0 + u * frac), 0, width - 1).astype(np.int16)
    y = np.clip(np.rint(y0 + v * frac), 0, height - 1).astype(np.int16)
    t = (frac * duration_us).astype(np.int64) + int(rng.integers(0, 10_000_000))
    # brightness increases on one side of the texture edges, decreases on the other
    p = np.where(np.sin(0.7 * x0 + 0.4 * y0 + rng.uniform(0, 6.28)) > 0, 1, 0).astype(np.int8)
    return {"x": x, "y": y, "t": t, "p": p}, (a, b, c, d, e, f)


def affine_flow(params, height, width, stride):
    a, b, c, d, e, f = params
    cx, cy = (width - 1) / 2.0, (height - 1) / 2.0
    gy, gx = np.meshgrid(np.arange(stride / 2 - 0.5, height, stride), np.arange(stride / 2 - 0.5, width, stride), indexing="ij")
    u = a + b * (gx - cx) + c * (gy - cy)
    v = d + e * (gx - cx) + f * (gy - cy)
    return np.stack([u, v]).astype(np.float32)
