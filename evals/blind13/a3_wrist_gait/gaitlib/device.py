"""Binary recordings as the wristband firmware writes them, simulated from a seed.

Layout: a 12-byte header b"ACC1", uint16 sample rate, uint16 lsb_per_g, uint32 sample count,
then one 10-byte packet per sample: uint32 timestamp (ms since start), int16 x, y, z.
"""
import struct

import numpy as np

HEADER = struct.Struct("<4sHHI")
PACKET = struct.Struct("<Ihhh")
GAITS = ("normal", "slow", "asymmetric", "running")


def _gait_params(kind, rng):
    if kind == "normal":
        return rng.uniform(1.7, 2.0), 1.0, rng.uniform(0.35, 0.5)
    if kind == "slow":
        return rng.uniform(1.1, 1.45), 1.0, rng.uniform(0.2, 0.3)
    if kind == "asymmetric":
        return rng.uniform(1.5, 1.8), rng.uniform(0.55, 0.75), rng.uniform(0.3, 0.45)
    return rng.uniform(2.5, 2.9), 1.0, rng.uniform(0.9, 1.4)


def simulate_recording(kind, fs, lsb, seconds, rng):
    n = int(fs * seconds)
    step_hz, asym, amp = _gait_params(kind, rng)
    # timestamps with clock jitter and occasional dropped packets
    t = np.cumsum(np.full(n, 1000.0 / fs) + rng.normal(0, 0.6, n))
    t = np.rint(t - t[0]).astype(np.int64)
    phase = 2 * np.pi * step_hz * t / 1000.0 + rng.uniform(0, 2 * np.pi)
    impact = np.where(np.sin(phase / 2) > 0, 1.0, asym) * np.maximum(np.sin(phase), 0) ** 3
    swing = 0.25 * np.sin(phase / 2 + 0.3)
    orient = rng.normal(0, 1, 3)
    orient /= np.linalg.norm(orient)
    gravity = orient * 1.0
    sig = np.stack([gravity[i] + amp * (impact * orient[i] + swing * orient[(i + 1) % 3]) for i in range(3)], 1)
    sig += rng.normal(0, 0.03, sig.shape)
    counts = np.clip(np.rint(sig * lsb), -32768, 32767).astype(np.int64)
    out = bytearray(HEADER.pack(b"ACC1", fs, lsb, n))
    for ti, (x, y, z) in zip(t.tolist(), counts.tolist()):
        out += PACKET.pack(ti, x, y, z)
    return bytes(out)


def simulate_cohort(subjects, per_subject, fs, lsb, seconds, seed):
    rng = np.random.default_rng(seed)
    recordings, labels, subject_ids = [], [], []
    for s in range(subjects):
        for _ in range(per_subject):
            label = int(rng.integers(0, len(GAITS)))
            recordings.append(simulate_recording(GAITS[label], fs, lsb, seconds, rng))
            labels.append(label)
            subject_ids.append(s)
    return recordings, labels, subject_ids


def read_header(blob):
    magic, fs, lsb, n = HEADER.unpack_from(blob, 0)
    if magic != b"ACC1":
        raise ValueError("not an ACC1 recording")
    return fs, lsb, n


def decode(blob):
    """-> (fs, lsb, timestamps, x, y, z) as lists."""
    fs, lsb, n = read_header(blob)
    ts, xs, ys, zs = [], [], [], []
    for t, x, y, z in PACKET.iter_unpack(blob[HEADER.size:HEADER.size + n * PACKET.size]):
        ts.append(t)
        xs.append(x)
        ys.append(y)
        zs.append(z)
    return fs, lsb, ts, xs, ys, zs


