"""A tiny DNG-like container: a struct header followed by little-endian uint16 CFA samples."""
import struct

import numpy as np

MAGIC = b"RAW1"
_HEADER = struct.Struct("<4sHHHH4s3f")  # magic, width, height, black, white, cfa, as-shot WB (R, G, B)


def pack_raw(mosaic, black, white, cfa, wb):
    h, w = mosaic.shape
    head = _HEADER.pack(MAGIC, w, h, black, white, cfa.encode("ascii"), *wb)
    return head + mosaic.astype("<u2").tobytes()


def unpack_raw(blob):
    magic, w, h, black, white, cfa, r, g, b = _HEADER.unpack_from(blob, 0)
    if magic != MAGIC:
        raise ValueError("not a RAW1 blob")
    data = np.frombuffer(blob, dtype="<u2", count=w * h, offset=_HEADER.size).reshape(h, w)
    meta = {"black": black, "white": white, "cfa": cfa.decode("ascii"), "wb": (r, g, b)}
    return data, meta


def synth_scene(rng, label, size):
    """Smooth illumination times a class-specific pattern, in linear RGB (0..1)."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64) / size
    freq = rng.uniform(3.0, 7.0)
    phase = rng.uniform(0, 2 * np.pi)
    if label == 0:
        pat = 0.5 + 0.5 * np.sin(2 * np.pi * freq * yy + phase)
    elif label == 1:
        pat = 0.5 + 0.5 * np.sin(2 * np.pi * freq * xx + phase)
    elif label == 2:
        pat = ((np.floor(xx * freq) + np.floor(yy * freq)) % 2).astype(np.float64)
    else:
        cy, cx = rng.uniform(0.2, 0.8, size=2)
        pat = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) * rng.uniform(8, 30))
    base = rng.uniform(0.1, 0.9, size=3)
    alt = rng.uniform(0.1, 0.9, size=3)
    light = 0.4 + 0.6 * (1 - 0.5 * yy)  # vignetting-ish falloff
    rgb = (base[None, None, :] * (1 - pat[..., None]) + alt[None, None, :] * pat[..., None]) * light[..., None]
    return np.clip(rgb, 0.0, 1.0)


def simulate_capture(rng, rgb, black, white, cfa="RGGB"):
    """Illuminant tint, Bayer sampling, shot/read noise, 12-bit quantisation."""
    tint = np.array([rng.uniform(0.45, 0.8), 1.0, rng.uniform(0.5, 0.9)])
    h, w, _ = rgb.shape
    chan = {"R": 0, "G": 1, "B": 2}
    mosaic = np.empty((h, w), dtype=np.float64)
    for dy in range(2):
        for dx in range(2):
            c = chan[cfa[2 * dy + dx]]
            mosaic[dy::2, dx::2] = rgb[dy::2, dx::2, c] * tint[c]
    signal = mosaic * (white - black) * 0.85
    noisy = signal + rng.normal(0.0, 1.0, size=signal.shape) * np.sqrt(signal + 16.0)
    dn = np.clip(np.round(noisy) + black, 0, white).astype(np.uint16)
    wb = tuple(float(1.0 / t) for t in tint)  # as-shot multipliers undo the tint
    return dn, wb
