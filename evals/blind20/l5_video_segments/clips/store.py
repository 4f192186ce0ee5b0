"""A small in-memory store of decoded videos: moving blobs whose motion gives the action class."""
from collections import namedtuple

import numpy as np

VideoRecord = namedtuple("VideoRecord", "video_id frames num_frames label")

MOTIONS = {0: (0.0, -1.5), 1: (0.0, 1.5), 2: (-1.5, 0.0), 3: (1.5, 0.0), 4: (0.0, 0.0)}


def render_video(rng, label, num_frames, size):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    bg = rng.uniform(40, 90, 3).astype(np.float32)
    colour = rng.uniform(150, 250, 3).astype(np.float32)
    cy, cx = rng.uniform(size * 0.3, size * 0.7, 2)
    dy, dx = MOTIONS[label]
    radius = rng.uniform(5, 9)
    frames = np.empty((num_frames, size, size, 3), dtype=np.uint8)
    for t in range(num_frames):
        r = radius * (1.0 + (0.03 * t if label == 4 else 0.0))
        blob = np.exp(-(((yy - cy - dy * t) ** 2 + (xx - cx - dx * t) ** 2) / (2 * r * r)))
        img = bg + blob[..., None] * (colour - bg) + rng.normal(0, 6, (size, size, 3))
        frames[t] = np.clip(img, 0, 255).astype(np.uint8)
    return frames


class VideoStore:
    def __init__(self, num_videos, size, min_frames, max_frames, num_actions, seed):
        rng = np.random.default_rng(seed)
        self.records = []
        for vid in range(num_videos):
            label = int(rng.integers(num_actions))
            n = int(rng.integers(min_frames, max_frames + 1))
            self.records.append(VideoRecord(vid, render_video(rng, label, n, size), n, label))

    def __len__(self):
        return len(self.records)

    def __getitem__(self, i):
        return self.records[i]
