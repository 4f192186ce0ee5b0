"""Run-up test bench: accelerometer + once-per-rev tachometer for four machine conditions."""
import numpy as np

FAULTS = ("healthy", "imbalance", "misalignment", "bearing_outer_race")


def simulate_runup(rng, fault, fs, seconds):
    n = int(round(fs * seconds))
    t = np.arange(n) / fs
    f0 = rng.uniform(12.0, 18.0)
    f1 = rng.uniform(35.0, 45.0)
    phase = 2 * np.pi * (f0 * t + 0.5 * (f1 - f0) / seconds * t ** 2) + rng.uniform(0, 2 * np.pi)
    speed = f0 + (f1 - f0) * t / seconds
    amp = 0.2 + (speed / 40.0) ** 2  # vibration grows with speed
    x = amp * (0.4 * np.sin(phase) + 0.1 * np.sin(2 * phase + 0.3))
    if fault == 1:    # imbalance: strong 1x
        x += amp * rng.uniform(0.8, 1.5) * np.sin(phase + rng.uniform(0, 6.28))
    elif fault == 2:  # misalignment: 2x and 3x
        x += amp * rng.uniform(0.6, 1.0) * np.sin(2 * phase) + amp * 0.4 * np.sin(3 * phase + 1.0)
    elif fault == 3:  # bearing outer race: non-integer order (BPFO ~ 3.58x)
        x += amp * rng.uniform(0.5, 0.9) * np.sin(3.58 * phase)
    tach = (np.sin(phase) > 0.95).astype(np.float64) + rng.normal(0, 0.02, n)
    return x.astype(np.float32), tach.astype(np.float32)
