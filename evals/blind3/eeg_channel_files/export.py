"""Write the synthetic motor-imagery export: <root>/trial_XXXX/{meta.json, ch00.npy ... chNN.npy}."""
import json
import os

import numpy as np

CLASSES = ["left_hand", "right_hand", "feet", "rest"]


def write_export(root, cfg):
    rng = np.random.default_rng(cfg["seed"])
    n_ch, fs, n = cfg["n_channels"], cfg["sfreq"], cfg["trial_samples"]
    t = np.arange(n) / fs
    tmp = root + ".partial"
    os.makedirs(tmp, exist_ok=True)
    for trial in range(cfg["n_trials"]):
        label = int(rng.integers(0, len(CLASSES)))
        x = rng.normal(0, 1.0, (n_ch, n))
        mu = np.sin(2 * np.pi * rng.uniform(9, 12) * t + rng.uniform(0, 6.3))
        gain = np.ones(n_ch)
        if label < 3:
            gain[label * 4:(label + 1) * 4] = 0.3  # event-related desynchronisation over one group
        x += 2.0 * gain[:, None] * mu[None, :]
        x *= rng.uniform(5, 20)  # microvolts, per-trial scale
        d = os.path.join(tmp, f"trial_{trial:04d}")
        os.makedirs(d, exist_ok=True)
        for ch in range(n_ch):
            np.save(os.path.join(d, f"ch{ch:02d}.npy"), x[ch].astype(np.float32))
        with open(os.path.join(d, "meta.json"), "w") as fh:
            json.dump({"label": CLASSES[label], "sfreq": fs, "n_channels": n_ch, "subject": trial % 9 + 1}, fh)
    os.rename(tmp, root)
