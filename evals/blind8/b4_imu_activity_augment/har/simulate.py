"""Synthetic wrist-worn IMU windows (acc xyz in g, gyro xyz in rad/s) for six activities."""
import numpy as np

ACTIVITIES = ["walking", "upstairs", "downstairs", "sitting", "standing", "lying"]
# step frequency (Hz), acc amplitude, gyro amplitude, gravity direction
_PROFILES = [
    (1.9, 0.35, 0.9, (0.0, 0.0, 1.0)),
    (1.6, 0.45, 1.1, (0.1, 0.0, 0.99)),
    (2.1, 0.55, 1.3, (-0.1, 0.0, 0.99)),
    (0.0, 0.02, 0.05, (0.6, 0.0, 0.8)),
    (0.0, 0.03, 0.05, (0.0, 0.1, 0.99)),
    (0.0, 0.01, 0.03, (0.98, 0.2, 0.0)),
]


def simulate(n, length, hz, seed):
    rng = np.random.default_rng(seed)
    t = np.arange(length) / hz
    x = np.empty((n, 6, length), dtype=np.float32)
    y = rng.integers(0, len(ACTIVITIES), size=n)
    for i in range(n):
        f, a_acc, a_gyr, g = _PROFILES[y[i]]
        f = f * rng.uniform(0.85, 1.15)
        ph = rng.uniform(0, 2 * np.pi, size=6)
        tilt = rng.normal(0.0, 0.08, size=3)
        for c in range(3):
            x[i, c] = (g[c] + tilt[c] + a_acc * np.sin(2 * np.pi * f * t + ph[c])
                       + 0.3 * a_acc * np.sin(4 * np.pi * f * t + ph[c]) + rng.normal(0, 0.02, length))
            x[i, 3 + c] = a_gyr * np.cos(2 * np.pi * f * t + ph[3 + c]) + rng.normal(0, 0.03, length)
    return x, y
