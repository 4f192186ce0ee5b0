"""Synthetic pose-estimator output for signed glosses.

27 keypoints per frame (x, y, confidence) in image coordinates: COCO-style body
(0 nose ... 5/6 shoulders, 7/8 elbows, 9/10 wrists, 11/12 hips) plus 7 points per hand.
Each gloss is a pair of wrist trajectories; signers differ in position, scale, speed.
"""
import numpy as np

N_KP = 27
L_SHOULDER, R_SHOULDER = 5, 6


def _template(rng):
    freq = rng.uniform(0.5, 2.0, size=2)
    amp = rng.uniform(0.2, 0.8, size=(2, 2))
    phase = rng.uniform(0, 2 * np.pi, size=(2, 2))
    return freq, amp, phase


def make_signs(n, n_glosses, min_len, max_len, seed):
    rng = np.random.default_rng(seed)
    templates = [_template(rng) for _ in range(n_glosses)]
    body = rng.normal(0, 0.3, size=(N_KP, 2))
    body[L_SHOULDER], body[R_SHOULDER] = (-1.0, 0.0), (1.0, 0.0)
    seqs, labels = [], []
    for _ in range(n):
        g = int(rng.integers(n_glosses))
        freq, amp, phase = templates[g]
        T = int(rng.integers(min_len, max_len + 1))
        s = np.linspace(0, 1, T)[:, None] * rng.uniform(0.8, 1.2)
        pts = np.broadcast_to(body, (T, N_KP, 2)).copy()
        for hand, kps in ((0, [9, 13, 14, 15, 16, 17, 18, 19]), (1, [10, 20, 21, 22, 23, 24, 25, 26])):
            wx = amp[hand, 0] * np.sin(2 * np.pi * freq[hand] * s + phase[hand, 0])
            wy = 1.5 + amp[hand, 1] * np.cos(2 * np.pi * freq[hand] * s + phase[hand, 1])
            for j, k in enumerate(kps):
                pts[:, k, 0] = wx[:, 0] + 0.05 * j * (1 if hand else -1)
                pts[:, k, 1] = wy[:, 0] - 0.04 * j
        scale = rng.uniform(60, 140)
        centre = rng.uniform([200, 150], [440, 330])
        pts = pts * scale + centre + rng.normal(0, 2.0, size=pts.shape)
        conf = np.clip(rng.normal(0.85, 0.15, size=(T, N_KP, 1)), 0, 1)
        conf[rng.random((T, N_KP, 1)) < 0.06] = 0.0  # missed detections
        seqs.append(np.concatenate([pts, conf], axis=-1).astype(np.float32))
        labels.append(g)
    return seqs, labels
