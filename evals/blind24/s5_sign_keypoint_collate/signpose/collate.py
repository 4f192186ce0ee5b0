"""Batching variable-length keypoint sequences."""
import math

import torch

from .synth import L_SHOULDER, R_SHOULDER


class PoseCollator:
    """Pad to the longest sequence; per frame, centre on the shoulder midpoint and divide by the
    shoulder width (carried from the last frame where both shoulders were detected); add
    frame-to-frame velocities and a keypoint validity mask."""

    def __init__(self, conf_threshold=0.3):
        self.conf_threshold = conf_threshold

    def __call__(self, batch):
        thr = self.conf_threshold
        T = max(len(item["keypoints"]) for item in batch)
        feats, kp_masks, frame_masks = [], [], []
        for item in batch:
            frames = item["keypoints"].tolist()
            cx, cy, width = 0.0, 0.0, 1.0
            prev = None
            seq_feats, seq_masks, seq_valid = [], [], []
            for t in range(T):
                if t >= len(frames):
                    seq_feats.append([0.0] * (4 * len(frames[0])))
                    seq_masks.append([0.0] * len(frames[0]))
                    seq_valid.append(False)
                    continue
                frame = frames[t]
                ls, rs = frame[L_SHOULDER], frame[R_SHOULDER]
                if ls[2] > thr and rs[2] > thr:
                    dx = ls[0] - rs[0]
                    dy = ls[1] - rs[1]
                    w = math.sqrt(dx * dx + dy * dy)
                    if w > 1e-3:
                        cx = (ls[0] + rs[0]) / 2.0
                        cy = (ls[1] + rs[1]) / 2.0
                        width = w
                row, mask, cur = [], [], []
                for k, (x, y, c) in enumerate(frame):
                    if c > thr:
                        nx = (x - cx) / width
                        ny = (y - cy) / width
                        cur.append((nx, ny))
                        if prev is not None and prev[k] is not None:
                            vx, vy = nx - prev[k][0], ny - prev[k][1]
                        else:
                            vx, vy = 0.0, 0.0
                        row.extend([nx, ny, vx, vy])
                        mask.append(1.0)
                    else:
                        cur.append(None)
                        row.extend([0.0, 0.0, 0.0, 0.0])
                        mask.append(0.0)
                prev = cur
                seq_feats.append(row)
                seq_masks.append(mask)
                seq_valid.append(True)
            feats.append(seq_feats)
            kp_masks.append(seq_masks)
            frame_masks.append(seq_valid)
        return {
            "pose": torch.tensor(feats, dtype=torch.float32),
            "kp_mask": torch.tensor(kp_masks, dtype=torch.float32),
            "frame_mask": torch.tensor(frame_masks, dtype=torch.bool),
            "labels": torch.tensor([item["label"] for item in batch], dtype=torch.long),
        }
