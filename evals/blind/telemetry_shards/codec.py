"""Compact telemetry record codec: zlib( header | zigzag-varint deltas per channel ).

header: magic u16, channels u16, n u32, scale f32, label u8 (little-endian)
"""
import struct
import zlib

import numpy as np

HEADER = struct.Struct("<HHIfB")
MAGIC = 0x7E1E


def encode(channels, scale, label):
    """channels: int64 array (n_channels, n). Vectorised: records are written once, offline."""
    channels = np.asarray(channels, dtype=np.int64)
    deltas = np.diff(channels, axis=1, prepend=0).ravel()
    zz = ((deltas << 1) ^ (deltas >> 63)).astype(np.uint64)
    nbytes = np.ones(zz.shape, dtype=np.int64)
    rest = zz >> np.uint64(7)
    while rest.any():
        nbytes += rest > 0
        rest >>= np.uint64(7)
    width = int(nbytes.max())
    k = np.arange(width)
    groups = ((zz[:, None] >> (np.uint64(7) * k.astype(np.uint64))) & np.uint64(0x7F)).astype(np.uint8)
    groups |= np.where(k[None, :] < nbytes[:, None] - 1, 0x80, 0).astype(np.uint8)
    body = groups[k[None, :] < nbytes[:, None]].tobytes()
    head = HEADER.pack(MAGIC, channels.shape[0], channels.shape[1], scale, label)
    return zlib.compress(head + body, 6)


def decode(blob):
    raw = zlib.decompress(blob)
    magic, n_ch, n, scale, label = HEADER.unpack_from(raw, 0)
    if magic != MAGIC:
        raise ValueError("bad record")
    pos = HEADER.size
    channels = []
    for _ in range(n_ch):
        values = []
        prev = 0
        count = 0
        while count < n:
            shift = 0
            result = 0
            while True:
                b = raw[pos]
                pos += 1
                result |= (b & 0x7F) << shift
                if b < 0x80:
                    break
                shift += 7
            delta = (result >> 1) ^ -(result & 1)
            prev += delta
            values.append(prev * scale)
            count += 1
        channels.append(values)
    return channels, label
