"""Simulated wearable exports: BLE packets of (timestamp ms, ax, ay, az) int16 counts at ~100 Hz,
with clock jitter and dropped packets, and the annotated fall times."""
import math
import struct

import numpy as np

RECORD = struct.Struct("<Ihhh")
COUNTS_PER_G = 4096


def _activity(rng, t):
    """Acceleration in g for a person walking / sitting / standing, slowly turning the wrist."""
    n = len(t)
    mode = rng.integers(0, 3)
    freq = rng.uniform(1.6, 2.2)
    roll = 0.3 * np.sin(2 * np.pi * t / rng.uniform(20, 40) + rng.uniform(0, 6))
    gx, gy, gz = np.sin(roll), 0.1 * np.cos(roll), np.cos(roll)
    amp = [0.25, 0.05, 0.02][mode]
    ax = gx + amp * np.sin(2 * np.pi * freq * t) + rng.normal(0, 0.02, n)
    ay = gy + 0.6 * amp * np.sin(2 * np.pi * freq * t + 1.0) + rng.normal(0, 0.02, n)
    az = gz + amp * np.abs(np.sin(np.pi * freq * t)) + rng.normal(0, 0.02, n)
    return np.stack([ax, ay, az], 1)


def _add_fall(rng, t, acc, t_fall):
    """Free fall dip, impact spike and lying still in another orientation afterwards."""
    dip = (t > t_fall - 0.4) & (t < t_fall)
    acc[dip] *= 0.25
    impact = np.exp(-((t - t_fall) / 0.04) ** 2)
    direction = rng.normal(0, 1, 3)
    direction /= np.linalg.norm(direction)
    acc += impact[:, None] * rng.uniform(2.5, 5.0) * direction[None, :]
    after = t > t_fall + 0.3
    lying = np.array([rng.uniform(-1, 1), rng.uniform(0.6, 1.0), rng.uniform(-0.3, 0.3)])
    lying /= np.linalg.norm(lying)
    acc[after] = lying + rng.normal(0, 0.01, (int(after.sum()), 3))


def simulate_recordings(n, seed, min_s=40, max_s=80):
    rng = np.random.default_rng(seed)
    out = []
    for rec_id in range(n):
        duration = rng.uniform(min_s, max_s)
        steps = rng.integers(9, 12, size=int(duration * 100) + 50)  # ms between packets, jittered
        t_ms = np.cumsum(steps)
        t_ms = t_ms[t_ms < duration * 1000]
        keep = rng.random(len(t_ms)) > 0.03  # dropped BLE packets
        keep[0] = keep[-1] = True
        t_ms = t_ms[keep]
        t = t_ms / 1000.0
        acc = _activity(rng, t)
        falls = []
        if rng.random() < 0.6:
            for _ in range(int(rng.integers(1, 3))):
                t_fall = rng.uniform(6, duration - 6)
                _add_fall(rng, t, acc, t_fall)
                falls.append(float(t_fall))
        counts = np.clip(np.rint(acc * COUNTS_PER_G), -32768, 32767).astype(np.int64)
        blob = b"".join(RECORD.pack(int(ts), *map(int, c)) for ts, c in zip(t_ms, counts))
        out.append({"device": f"wrist-{rec_id % 7:02d}", "packets": blob, "falls": sorted(falls)})
    return out


def decode_packets(blob):
    """bytes -> (timestamps in ms, [[ax, ay, az] in g])"""
    ts, acc = [], []
    for t_ms, x, y, z in RECORD.iter_unpack(blob):
        ts.append(t_ms)
        acc.append((x / COUNTS_PER_G, y / COUNTS_PER_G, z / COUNTS_PER_G))
    return ts, acc


def butter_lowpass(cutoff_hz, fs):
    """Second-order Butterworth low-pass by the bilinear transform (RBJ cookbook form)."""
    w0 = 2 * math.pi * cutoff_hz / fs
    alpha = math.sin(w0) / (2 * math.sqrt(2))
    cos_w0 = math.cos(w0)
    a0 = 1 + alpha
    b = ((1 - cos_w0) / 2 / a0, (1 - cos_w0) / a0, (1 - cos_w0) / 2 / a0)
    a = (-2 * cos_w0 / a0, (1 - alpha) / a0)
    return b, a
