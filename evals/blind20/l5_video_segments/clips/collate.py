"""Clip collation: temporal segment sampling, one crop box per clip, frame-validity mask."""
import numpy as np
import torch


def sample_segment_indices(num_frames, num_segments, rng):
    """TSN sampling: one random frame from each of `num_segments` equal segments.

    Videos shorter than `num_segments` keep every frame; the rest of the clip is padding.
    """
    if num_frames < num_segments:
        return list(range(num_frames))
    seg_len = num_frames / num_segments
    starts = [int(round(seg_len * k)) for k in range(num_segments)]
    ends = [int(round(seg_len * (k + 1))) for k in range(num_segments)]
    return [int(rng.integers(s, max(e, s + 1))) for s, e in zip(starts, ends)]


def sample_crop_box(height, width, crop, rng):
    y0 = int(rng.integers(0, height - crop + 1))
    x0 = int(rng.integers(0, width - crop + 1))
    return y0, x0, crop, crop


class SegmentClipCollator:
    def __init__(self, num_segments, crop_size, flip_prob, mean, std, seed):
        self.num_segments = num_segments
        self.crop_size = crop_size
        self.flip_prob = flip_prob
        self.mean = torch.tensor(mean, dtype=torch.float32).view(3, 1, 1, 1)
        self.std = torch.tensor(std, dtype=torch.float32).view(3, 1, 1, 1)
        self.rng = np.random.default_rng(seed)

    def make_clip(self, record):
        indices = sample_segment_indices(record.num_frames, self.num_segments, self.rng)
        _, height, width, _ = record.frames.shape
        y0, x0, h, w = sample_crop_box(height, width, self.crop_size, self.rng)
        flip = self.rng.random() < self.flip_prob

        frames = []
        for t in indices:
            frame = record.frames[t, y0:y0 + h, x0:x0 + w]
            if flip:
                frame = frame[:, ::-1]
            frames.append(frame)
        valid = [1.0] * len(frames)
        while len(frames) < self.num_segments:
            frames.append(np.zeros((h, w, 3), dtype=np.uint8))
            valid.append(0.0)

        clip = torch.tensor(frames, dtype=torch.float32)     # T, H, W, C
        clip = clip.permute(3, 0, 1, 2).div(255.0)           # C, T, H, W
        clip = (clip - self.mean) / self.std
        return clip, torch.tensor(valid)

    def __call__(self, records):
        clips, masks = zip(*(self.make_clip(r) for r in records))
        return {
            "clips": torch.stack(clips),
            "frame_mask": torch.stack(masks),
            "labels": torch.tensor([r.label for r in records], dtype=torch.long),
            "video_ids": torch.tensor([r.video_id for r in records], dtype=torch.long),
        }
