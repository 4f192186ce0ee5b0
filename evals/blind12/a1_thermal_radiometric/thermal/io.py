"""Raw 14-bit frame format and a synthetic scene generator.

A frame as it comes off the camera link: a 24-byte little-endian header followed by
height*width uint16 words holding 14-bit counts (the two top bits are flags and are masked off).
"""
import math
import struct
import zlib
from dataclasses import dataclass

import numpy as np

HEADER = struct.Struct("<4sHHIdI")  # magic, width, height, frame_id, timestamp, crc32 of payload
MAGIC = b"LWIR"
COUNT_MASK = 0x3FFF
SATURATED = 0x3FFF


@dataclass
class CameraCalibration:
    """Per-pixel non-uniformity correction plus the Planck curve of the radiometric model."""
    gain: np.ndarray      # (H, W) float64
    offset: np.ndarray    # (H, W) float64, in counts
    dead: np.ndarray      # (H, W) bool, factory bad-pixel map
    R1: float = 21106.77
    R2: float = 0.012545258
    B: float = 1501.0
    F: float = 1.0
    O: float = -7340.0

    @classmethod
    def factory(cls, height, width, rng):
        gain = 1.0 + 0.035 * rng.standard_normal((height, width))
        # column fixed-pattern noise on top of the per-pixel spread
        offset = 45.0 * rng.standard_normal((height, width)) + 30.0 * rng.standard_normal(width)[None, :]
        dead = rng.random((height, width)) < 0.006
        return cls(gain=gain, offset=offset, dead=dead)

    def counts_for(self, kelvin):
        """Ideal (corrected) counts a blackbody at `kelvin` produces."""
        return self.R1 / (self.R2 * (np.exp(self.B / kelvin) - self.F)) + self.O


class RawFrameCodec:
    @staticmethod
    def encode(counts, frame_id, timestamp):
        h, w = counts.shape
        payload = counts.astype("<u2").tobytes()
        return HEADER.pack(MAGIC, w, h, frame_id, timestamp, zlib.crc32(payload)) + payload

    @staticmethod
    def decode(buf):
        magic, w, h, frame_id, ts, crc = HEADER.unpack_from(buf, 0)
        if magic != MAGIC:
            raise ValueError(f"bad magic {magic!r}")
        payload = memoryview(buf)[HEADER.size:HEADER.size + 2 * w * h]
        if zlib.crc32(payload) != crc:
            raise ValueError(f"frame {frame_id}: crc mismatch")
        counts = np.frombuffer(payload, dtype="<u2").reshape(h, w) & COUNT_MASK
        return counts, {"frame_id": frame_id, "timestamp": ts}


CLASSES = ("empty", "person", "vehicle", "animal")


def _scene(label, height, width, rng):
    """Scene temperature in kelvin with one warm object of the given class."""
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float64)
    ambient = rng.uniform(283.0, 298.0)
    t = ambient + 1.5 * (yy / height) + 0.4 * rng.standard_normal((height, width))
    if label == 0:
        return t
    cy, cx = rng.uniform(0.3, 0.7) * height, rng.uniform(0.25, 0.75) * width
    scale = height / 60.0
    if label == 1:    # upright, skin-warm
        ry, rx, temp = scale * rng.uniform(12, 20), scale * rng.uniform(4, 7), rng.uniform(305.0, 309.0)
        inside = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1.0
    elif label == 2:  # wide, hot engine block
        ry, rx, temp = scale * rng.uniform(6, 10), scale * rng.uniform(14, 22), rng.uniform(318.0, 338.0)
        inside = (np.abs(yy - cy) <= ry) & (np.abs(xx - cx) <= rx)
    else:             # low, horizontal, fur-dimmed
        ry, rx, temp = scale * rng.uniform(3, 6), scale * rng.uniform(7, 12), rng.uniform(300.0, 306.0)
        inside = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1.0
    t[inside] = temp + 0.6 * rng.standard_normal(int(inside.sum()))
    return t


def synthesize_sequence(n_frames, height, width, calib, seed):
    """Raw frames (bytes) and labels as a camera recording would deliver them."""
    rng = np.random.default_rng(seed)
    frames, labels = [], []
    t0 = 1_765_000_000.0
    for i in range(n_frames):
        label = int(rng.integers(len(CLASSES)))
        ideal = calib.counts_for(_scene(label, height, width, rng))
        raw = (ideal - calib.offset) / calib.gain + 6.0 * rng.standard_normal((height, width))
        raw = np.clip(np.rint(raw), 0, SATURATED).astype(np.uint16)
        raw[calib.dead] = np.where(rng.random(int(calib.dead.sum())) < 0.5, 0, SATURATED)
        flicker = rng.random((height, width)) < 0.002  # transient saturated pixels
        raw[flicker] = SATURATED
        raw |= (rng.random((height, width)) < 0.01).astype(np.uint16) << 14  # flag bits
        frames.append(RawFrameCodec.encode(raw, i, t0 + i / 30.0))
        labels.append(label)
    return frames, labels
