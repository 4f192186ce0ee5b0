"""Writes the synthetic patch store on first use: one .npy per patch, one .json sidecar per patch."""
import json
import os

import numpy as np


def ensure_store(root, n, bands, size, classes, seed):
    marker = os.path.join(root, "COMPLETE")
    if os.path.exists(marker):
        with open(marker) as fh:
            if fh.read().strip() == f"{n} {bands} {size} {classes} {seed}":
                return
    os.makedirs(os.path.join(root, "img"), exist_ok=True)
    os.makedirs(os.path.join(root, "meta"), exist_ok=True)
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size] / size
    for i in range(n):
        label = int(rng.integers(classes))
        signature = np.linspace(0.2, 0.8, bands) ** (1 + label * 0.5)
        texture = np.sin((label + 1) * 3.0 * (xx + rng.uniform()) ) * np.cos(2.0 * yy + label)
        img = signature[:, None, None] * (1 + 0.3 * texture[None]) + rng.normal(0, 0.05, (bands, size, size))
        np.save(os.path.join(root, "img", f"{i:05d}.npy"), img.astype(np.float32))
        meta = {"label": label, "cloud": round(float(rng.uniform(0, 0.4)), 3),
                "tile": f"T{rng.integers(10, 60)}{chr(65 + int(rng.integers(26)))}"}
        with open(os.path.join(root, "meta", f"{i:05d}.json"), "w") as fh:
            json.dump(meta, fh)
    with open(marker, "w") as fh:
        fh.write(f"{n} {bands} {size} {classes} {seed}")
