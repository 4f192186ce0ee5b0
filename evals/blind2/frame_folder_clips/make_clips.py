"""Writes the synthetic action clips once: data/clips/<clip>/frame_XXX.raw (+ label.txt).

Frames are raw uint8 HxWx3 dumps, the way a frame-extraction script (ffmpeg -> images)
leaves one file per frame. Each class is a blob moving in its own direction.
"""
import os

import numpy as np

ACTIONS = ["left", "right", "up", "down", "circle", "still"]


def _trajectory(action, t, n, rng):
    phase = rng.uniform(0, 2 * np.pi)
    s = t / max(n - 1, 1)
    if action == "left":
        return 0.8 - 0.6 * s, 0.5
    if action == "right":
        return 0.2 + 0.6 * s, 0.5
    if action == "up":
        return 0.5, 0.8 - 0.6 * s
    if action == "down":
        return 0.5, 0.2 + 0.6 * s
    if action == "circle":
        return 0.5 + 0.3 * np.cos(phase + 2 * np.pi * s), 0.5 + 0.3 * np.sin(phase + 2 * np.pi * s)
    return 0.5 + 0.02 * np.cos(phase), 0.5


def write_clips(root, n_clips, min_frames, max_frames, size, seed):
    done = os.path.join(root, "DONE")
    if os.path.exists(done):
        return
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size] / size
    for c in range(n_clips):
        label = int(rng.integers(len(ACTIONS)))
        n = int(rng.integers(min_frames, max_frames + 1))
        clip_dir = os.path.join(root, "clips", f"clip_{c:04d}")
        os.makedirs(clip_dir, exist_ok=True)
        colour = rng.uniform(0.4, 1.0, size=3)
        background = rng.uniform(0.0, 0.3, size=3)
        for t in range(n):
            cx, cy = _trajectory(ACTIONS[label], t, n, rng)
            blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / 0.01)[..., None]
            frame = blob * colour + (1 - blob) * background + rng.normal(0, 0.03, (size, size, 3))
            frame = (np.clip(frame, 0, 1) * 255).astype(np.uint8)
            with open(os.path.join(clip_dir, f"frame_{t:03d}.raw"), "wb") as f:
                f.write(frame.tobytes())
        with open(os.path.join(clip_dir, "label.txt"), "w") as f:
            f.write(ACTIONS[label] + "\n")
    with open(done, "w") as f:
        f.write("ok\n")
