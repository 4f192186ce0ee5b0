"""Synthetic PPI reflectivity composites: convective cells advected by a steering wind."""
import numpy as np


def simulate_sequence(rng, grid, n_frames, n_cells):
    yy, xx = np.mgrid[0:grid, 0:grid].astype(np.float32)
    u, v = rng.uniform(-1.5, 1.5, size=2)
    cells = [(rng.uniform(0, grid), rng.uniform(0, grid), rng.uniform(2.5, 6.0), rng.uniform(35, 60),
              rng.uniform(-0.08, 0.05)) for _ in range(n_cells)]
    frames = []
    for t in range(n_frames + 1):  # last frame is the nowcast target
        z = np.zeros((grid, grid), np.float32)
        for cx, cy, sigma, peak, growth in cells:
            px, py = cx + u * t, cy + v * t
            amp = peak * max(0.0, 1.0 + growth * t)
            z = np.maximum(z, amp * np.exp(-((xx - px) ** 2 + (yy - py) ** 2) / (2 * sigma ** 2)))
        z += rng.normal(0, 1.5, z.shape).astype(np.float32)
        frames.append(z)
    return np.stack(frames).astype(np.float32)
