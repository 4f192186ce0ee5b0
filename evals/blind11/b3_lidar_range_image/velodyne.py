"""HDL-32E-style packet format and a synthetic street-scene sweep generator.

A data packet is 1206 bytes: 12 firing blocks of (0xEEFF flag, azimuth in 0.01 deg,
32 x (distance in 2 mm units, reflectivity)), then a 4-byte timestamp (us) and two
factory bytes. Distance 0 means no return. Per-point semantic labels come as a separate
uint8 stream in firing order (as SemanticKITTI stores them next to the scans).
"""
import math
import struct

import numpy as np

BLOCK_FLAG = 0xEEFF
LASERS = 32
BLOCKS_PER_PACKET = 12
PACKET_SIZE = 1206
BLOCK_SIZE = 4 + 3 * LASERS

# Elevation (deg) of each laser id, in firing order (interleaved as on the HDL-32E).
ELEVATIONS = [-30.67, -9.33, -29.33, -8.00, -28.00, -6.67, -26.67, -5.33,
              -25.33, -4.00, -24.00, -2.67, -22.67, -1.33, -21.33, 0.00,
              -20.00, 1.33, -18.67, 2.67, -17.33, 4.00, -16.00, 5.33,
              -14.67, 6.67, -13.33, 8.00, -12.00, 9.33, -10.67, 10.67]
# Range-image row of each laser: row 0 is the highest beam.
ROW_OF_LASER = [sorted(ELEVATIONS, reverse=True).index(e) for e in ELEVATIONS]

CLASSES = ["ground", "vehicle", "building", "vegetation", "pole"]

PACKET_DTYPE = np.dtype([
    ("blocks", [("flag", "<u2"), ("azimuth", "<u2"), ("returns", [("distance", "<u2"), ("reflectivity", "u1")], (LASERS,))],
     (BLOCKS_PER_PACKET,)),
    ("timestamp", "<u4"),
    ("factory", "u1", (2,)),
])
assert PACKET_DTYPE.itemsize == PACKET_SIZE


def synth_sweep(rng, firings, objects, resolution=0.002, sensor_height=1.8):
    """One 360-degree sweep as (packet bytes, label bytes)."""
    az_step = 36000 // firings
    start = int(rng.integers(0, az_step))
    azimuth = (start + az_step * np.arange(firings)) % 36000            # (F,)
    elev = np.radians(np.array(ELEVATIONS))                              # (L,)
    theta = np.radians(azimuth / 100.0)[:, None]                         # (F,1)
    # Ground: horizontal distance where each downward beam meets z = -sensor_height.
    with np.errstate(divide="ignore"):
        ground_h = np.where(elev < 0, sensor_height / np.tan(-np.minimum(elev, -1e-6)), np.inf)
    hdist = np.broadcast_to(ground_h, (firings, LASERS)).copy()
    label = np.zeros((firings, LASERS), dtype=np.uint8)
    refl = np.broadcast_to(rng.integers(8, 30, size=LASERS), (firings, LASERS)).astype(np.float64).copy()
    # Objects: vertical slabs facing the sensor (cars, walls, trees, poles) at random bearings.
    for _ in range(objects):
        cls = int(rng.choice([1, 2, 3, 4], p=[0.45, 0.2, 0.25, 0.1]))
        dist = rng.uniform(4.0, 45.0) if cls != 2 else rng.uniform(15.0, 70.0)
        half_width = {1: 2.2, 2: 12.0, 3: 2.5, 4: 0.25}[cls]
        height = {1: 1.6, 2: 9.0, 3: 6.0, 4: 5.0}[cls]
        bearing = rng.uniform(0, 2 * np.pi)
        dtheta = np.angle(np.exp(1j * (theta - bearing)))                 # (F,1)
        covered = np.abs(np.tan(dtheta)) * dist <= half_width
        covered &= np.abs(dtheta) < np.pi / 2
        h = dist / np.maximum(np.cos(dtheta), 1e-3)
        z_at_hit = h * np.tan(elev)[None, :] + sensor_height
        hit = covered & (z_at_hit > 0) & (z_at_hit < height) & (h < hdist)
        hdist = np.where(hit, h, hdist)
        label = np.where(hit, cls, label)
        refl = np.where(hit, rng.integers(20, 120), refl)
    rng_m = hdist / np.cos(elev)[None, :]
    noisy = rng.random(rng_m.shape) < 0.3
    rng_m = rng_m + noisy * rng.normal(0.0, 0.01, size=rng_m.shape)
    raw = np.where(np.isfinite(rng_m) & (rng_m < 120.0), np.rint(rng_m / resolution), 0).astype(np.int64)
    raw[rng.random(raw.shape) < 0.03] = 0                                  # dropped returns
    reflectivity = np.clip(refl + rng.normal(0, 6, size=refl.shape), 0, 255).astype(np.uint8)

    packets_n = -(-firings // BLOCKS_PER_PACKET)
    pk = np.zeros(packets_n, dtype=PACKET_DTYPE)
    blocks = pk["blocks"].reshape(-1)[:firings]
    pk["blocks"]["flag"] = BLOCK_FLAG
    flat = pk["blocks"].reshape(-1)
    flat["azimuth"][:firings] = azimuth
    flat["returns"]["distance"][:firings] = raw
    flat["returns"]["reflectivity"][:firings] = reflectivity
    pk["blocks"] = flat.reshape(packets_n, BLOCKS_PER_PACKET)
    pk["timestamp"] = np.arange(packets_n, dtype=np.uint32) * 553
    del blocks
    return pk.tobytes(), label.astype(np.uint8).tobytes()


def iter_points(packet_bytes):
    """Decode packets: yield (laser id, azimuth ticks, raw distance, reflectivity) in firing order."""
    for pkt in range(0, len(packet_bytes), PACKET_SIZE):
        for blk in range(BLOCKS_PER_PACKET):
            off = pkt + blk * BLOCK_SIZE
            flag, azimuth = struct.unpack_from("<HH", packet_bytes, off)
            if flag != BLOCK_FLAG:
                continue
            off += 4
            for laser in range(LASERS):
                distance, reflectivity = struct.unpack_from("<HB", packet_bytes, off + 3 * laser)
                yield laser, azimuth, distance, reflectivity


SIN_ELEVATION = [math.sin(math.radians(e)) for e in ELEVATIONS]
COS_ELEVATION = [math.cos(math.radians(e)) for e in ELEVATIONS]
