"""Collate a list of clips into padded per-frame track tensors."""
import random
from dataclasses import dataclass

import torch


@dataclass
class TrackBatch:
    boxes: torch.Tensor        # (B, T, K, 4) cx, cy, w, h normalised to the image size
    present: torch.Tensor      # (B, T, K) bool: the track has a box in this frame
    visible: torch.Tensor      # (B, T, K) bool: present and visibility >= min_visibility
    visibility: torch.Tensor   # (B, T, K) float
    age: torch.Tensor          # (B, T, K) long: frames since the track's first box in the clip
    num_tracks: torch.Tensor   # (B,) long

    def as_dict(self):
        return dict(vars(self))


class MOTTrackCollator:
    """Remaps each clip's track ids to 0..K-1 by first appearance, random horizontal flip per clip."""

    def __init__(self, max_tracks, min_visibility, keep_classes, seed, flip_prob=0.5):
        self.max_tracks = max_tracks
        self.min_visibility = min_visibility
        self.keep_classes = set(keep_classes)
        self.flip_prob = flip_prob
        self.rng = random.Random(seed)

    def _remap(self, frames):
        seen = []
        for dets in frames:
            for det in dets:
                if det["conf"] == 0 or det["cls"] not in self.keep_classes:
                    continue
                if det["id"] not in seen:
                    seen.append(det["id"])
        return seen[:self.max_tracks]

    def __call__(self, clips):
        T = len(clips[0]["frames"])
        remaps = [self._remap(c["frames"]) for c in clips]
        K = max(1, max(len(r) for r in remaps))
        B = len(clips)
        boxes = [[[[0.0, 0.0, 0.0, 0.0] for _ in range(K)] for _ in range(T)] for _ in range(B)]
        present = [[[False] * K for _ in range(T)] for _ in range(B)]
        visible = [[[False] * K for _ in range(T)] for _ in range(B)]
        visibility = [[[0.0] * K for _ in range(T)] for _ in range(B)]
        age = [[[0] * K for _ in range(T)] for _ in range(B)]
        for b, (clip, ids) in enumerate(zip(clips, remaps)):
            W, H = clip["image_size"]
            flip = self.rng.random() < self.flip_prob
            first_seen = {}
            for t, dets in enumerate(clip["frames"]):
                for det in dets:
                    if det["conf"] == 0 or det["cls"] not in self.keep_classes:
                        continue
                    if det["id"] not in ids:
                        continue                      # beyond max_tracks
                    k = ids.index(det["id"])
                    x, y, w, h = det["bbox"]
                    if flip:
                        x = W - x - w
                    boxes[b][t][k] = [(x + w / 2.0) / W, (y + h / 2.0) / H, w / W, h / H]
                    present[b][t][k] = True
                    visibility[b][t][k] = det["vis"]
                    visible[b][t][k] = det["vis"] >= self.min_visibility
                    first_seen.setdefault(k, t)
                    age[b][t][k] = t - first_seen[k]
        return TrackBatch(
            boxes=torch.tensor(boxes, dtype=torch.float32),
            present=torch.tensor(present, dtype=torch.bool),
            visible=torch.tensor(visible, dtype=torch.bool),
            visibility=torch.tensor(visibility, dtype=torch.float32),
            age=torch.tensor(age, dtype=torch.long),
            num_tracks=torch.tensor([len(r) for r in remaps], dtype=torch.long),
        )
