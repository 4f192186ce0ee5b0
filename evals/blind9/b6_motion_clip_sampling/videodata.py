"""Synthetic motion videos stored as per-frame zlib-compressed grayscale frames, and the clip dataset."""
import collections
import zlib

import numpy as np
import torch
from torch.utils.data import Dataset

CLASSES = ["slide_right", "bounce", "spin_bar", "pulse", "flicker", "cross"]
Clip = collections.namedtuple("Clip", ["frames", "motion", "label"])


def _render(kind, n, size, rng):
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    bg = rng.uniform(10, 60)
    noise_level = rng.uniform(2, 8)
    frames = np.empty((n, size, size), np.float32)
    # motion happens in bursts: the object rests between them
    speed = np.repeat(rng.choice([0.0, 0.0, 1.0, 2.0], size=n // 10 + 1), 10)[:n]
    pos = np.cumsum(speed) + rng.uniform(0, size)
    for t in range(n):
        img = np.full((size, size), bg, np.float32)
        p = pos[t]
        if kind == "slide_right":
            cx, cy = p % size, size / 2
            img[(np.abs(xx - cx) < 4) & (np.abs(yy - cy) < 4)] = 220
        elif kind == "bounce":
            cy = size / 2 + (size / 3) * np.sin(p / 6)
            img[(xx - size / 2) ** 2 + (yy - cy) ** 2 < 20] = 200
        elif kind == "spin_bar":
            a = p / 8
            d = np.abs((xx - size / 2) * np.sin(a) - (yy - size / 2) * np.cos(a))
            img[(d < 1.5) & ((xx - size / 2) ** 2 + (yy - size / 2) ** 2 < (size / 2.5) ** 2)] = 230
        elif kind == "pulse":
            r = 3 + (size / 4) * (0.5 + 0.5 * np.sin(p / 5))
            img[(xx - size / 2) ** 2 + (yy - size / 2) ** 2 < r * r] = 180
        elif kind == "flicker":
            img[8:24, 8:24] = 120 + 100 * ((int(p) // 3) % 2)
        else:  # cross
            c = p % size
            img[(np.abs(xx - c) < 3) & (np.abs(yy - 10) < 3)] = 210
            img[(np.abs(xx - (size - c)) < 3) & (np.abs(yy - 22) < 3)] = 210
        frames[t] = img
    frames += rng.normal(0, noise_level, frames.shape).astype(np.float32)
    return np.clip(frames, 0, 255).astype(np.uint8)


def make_videos(per_class, min_frames, max_frames, size, seed):
    rng = np.random.default_rng(seed)
    videos = []
    for label, kind in enumerate(CLASSES):
        for _ in range(per_class):
            n = int(rng.integers(min_frames, max_frames + 1))
            encoded = [zlib.compress(f.tobytes(), 1) for f in _render(kind, n, size, rng)]
            videos.append({"frames": encoded, "size": size, "label": label})
    return videos


def decode_frame(blob, size):
    return np.frombuffer(zlib.decompress(blob), dtype=np.uint8).reshape(size, size)


def motion_energy(frames):
    """Mean absolute frame difference per frame (0 for the first frame)."""
    energy = [0.0]
    prev = frames[0]
    for cur in frames[1:]:
        energy.append(float(np.abs(cur.astype(np.int16) - prev.astype(np.int16)).mean()))
        prev = cur
    return energy


class MotionClipDataset(Dataset):
    """Samples a clip of `clip_len` frames (every `stride`-th) with probability proportional to its motion."""

    def __init__(self, videos, clip_len, stride, seed):
        self.videos = videos
        self.clip_len = clip_len
        self.stride = stride
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.videos)

    def _window_scores(self, energy):
        span = (self.clip_len - 1) * self.stride + 1
        scores = []
        for start in range(len(energy) - span + 1):
            scores.append(sum(energy[start + 1:start + span]) + 1e-3)
        return scores

    def __getitem__(self, idx):
        video = self.videos[idx]
        frames = [decode_frame(b, video["size"]) for b in video["frames"]]
        energy = motion_energy(frames)
        scores = self._window_scores(energy)
        total = sum(scores)
        start = int(self.rng.choice(len(scores), p=[s / total for s in scores]))
        picked = [frames[start + k * self.stride] for k in range(self.clip_len)]
        clip = np.stack(picked).astype(np.float32) / 255.0
        diffs = clip[1:] - clip[:-1]
        motion = [energy[start + k * self.stride] for k in range(self.clip_len)]
        return Clip(torch.from_numpy(np.concatenate([clip, diffs])), torch.tensor(motion, dtype=torch.float32),
                    video["label"])


def collate_clips(items):
    return Clip(torch.stack([c.frames for c in items]), torch.stack([c.motion for c in items]),
                torch.tensor([c.label for c in items]))
