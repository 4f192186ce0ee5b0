"""A tiny DICOM-like container: a fixed binary header packed with `struct`, then raw int16 pixels.

Layout (little endian):
    magic      4s   b"DCML"
    version    H
    rows, cols H H
    bits_alloc H    (always 16)
    pixel_rep  H    (1: signed)
    slope      f    RescaleSlope
    intercept  f    RescaleIntercept
    wl_center  f    WindowCenter
    wl_width   f    WindowWidth
    spacing    f    PixelSpacing (mm)
    series_uid I
    instance   H
    pixels     rows * cols * int16
"""
import struct
from dataclasses import dataclass

import numpy as np

HEADER = struct.Struct("<4sHHHHHfffffIH")
MAGIC = b"DCML"


@dataclass
class SliceHeader:
    rows: int
    cols: int
    slope: float
    intercept: float
    window_center: float
    window_width: float
    spacing: float
    series_uid: int
    instance: int


def pack_slice(hu, slope, intercept, window_center, window_width, spacing, series_uid, instance):
    """Store HU values the way scanners do: (HU - intercept) / slope, rounded to int16."""
    stored = np.round((hu - intercept) / slope).astype("<i2")
    rows, cols = stored.shape
    head = HEADER.pack(MAGIC, 1, rows, cols, 16, 1, slope, intercept, window_center, window_width,
                       spacing, series_uid, instance)
    return head + stored.tobytes()


def read_slice(blob):
    (magic, version, rows, cols, bits, pixel_rep, slope, intercept, wc, ww, spacing, uid,
     instance) = HEADER.unpack_from(blob, 0)
    if magic != MAGIC:
        raise ValueError(f"not a DCML blob: {magic!r}")
    if bits != 16 or pixel_rep != 1:
        raise ValueError("only signed 16-bit pixels are supported")
    pixels = np.frombuffer(blob, dtype="<i2", count=rows * cols, offset=HEADER.size).reshape(rows, cols)
    return SliceHeader(rows, cols, slope, intercept, wc, ww, spacing, uid, instance), pixels
