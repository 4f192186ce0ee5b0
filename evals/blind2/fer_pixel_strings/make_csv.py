"""Writes a FER2013-shaped CSV (emotion,pixels,Usage) of synthetic 48x48 faces, once."""
import csv
import os

import numpy as np

EMOTIONS = ["angry", "disgust", "fear", "happy", "sad", "surprise", "neutral"]


def _face(rng, emotion, size):
    yy, xx = np.mgrid[0:size, 0:size] / size
    cx, cy = 0.5 + rng.normal(0, 0.03), 0.5 + rng.normal(0, 0.03)
    img = 0.25 + 0.5 * (((xx - cx) / 0.38) ** 2 + ((yy - cy) / 0.45) ** 2 < 1)
    eye_h = 0.02 + 0.01 * (emotion in (2, 5))
    for ex in (cx - 0.15, cx + 0.15):
        img -= 0.4 * np.exp(-((xx - ex) ** 2 / 0.003 + (yy - cy + 0.1) ** 2 / eye_h * 0.1))
    curve = [-0.08, -0.05, -0.03, 0.1, -0.1, 0.0, 0.01][emotion]
    mouth_y = cy + 0.2 + curve * ((xx - cx) / 0.2) ** 2 - curve / 2
    open_mouth = 0.012 if emotion == 5 else 0.004
    img -= 0.35 * np.exp(-((yy - mouth_y) ** 2) / open_mouth) * (np.abs(xx - cx) < 0.18)
    img += rng.normal(0, 0.05, img.shape)
    return (np.clip(img, 0, 1) * 255).astype(np.uint8)


def write_fer_csv(path, n, size, seed):
    if os.path.exists(path):
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    rng = np.random.default_rng(seed)
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["emotion", "pixels", "Usage"])
        for i in range(n):
            e = int(rng.integers(len(EMOTIONS)))
            w.writerow([e, " ".join(map(str, _face(rng, e, size).ravel().tolist())),
                        "Training" if i % 10 else "PublicTest"])
    os.replace(tmp, path)
