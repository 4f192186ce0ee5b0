"""Deterministic synthetic indoor RGB-D frames: a floor, a back wall and a box."""
import numpy as np

FLOOR, WALL, OBJECT = 0, 1, 2
IGNORE = 255

_PALETTE = np.array([[120, 96, 72], [200, 200, 190], [40, 90, 160]], dtype=np.float64)


def render_frame(index, height, width, intrinsics, dropout, seed):
    rng = np.random.default_rng([seed, index])
    fx, fy, cx, cy = intrinsics
    cam_height = rng.uniform(0.9, 1.5)
    wall_z = rng.uniform(2.5, 5.0)
    wall_tilt = rng.uniform(-0.01, 0.01)
    v = np.arange(height, dtype=np.float64)[:, None]
    u = np.arange(width, dtype=np.float64)[None, :]
    wall = wall_z + wall_tilt * (u - cx) + 0.0 * v
    with np.errstate(divide="ignore"):
        floor = np.where(v > cy, fy * cam_height / np.maximum(v - cy, 1e-6), np.inf) + 0.0 * u
    depth = np.minimum(wall, floor)
    label = np.where(floor < wall, FLOOR, WALL).astype(np.uint8)

    # a box standing in front of the wall
    bw, bh = rng.integers(8, 20), rng.integers(8, 18)
    bu, bv = rng.integers(0, width - bw), rng.integers(int(cy) - 4, height - bh)
    bz = rng.uniform(1.2, wall_z - 0.3)
    region = np.zeros_like(label, dtype=bool)
    region[bv:bv + bh, bu:bu + bw] = True
    region &= bz < depth
    depth = np.where(region, bz + 0.004 * (u - bu), depth)
    label[region] = OBJECT

    depth = depth + rng.normal(0.0, 0.002, depth.shape) * depth
    depth_mm = np.clip(np.round(depth * 1000.0), 0, 65535).astype(np.uint16)
    holes = rng.random(depth.shape) < dropout
    depth_mm[holes] = 0
    label[holes] = IGNORE

    shade = 1.0 - 0.08 * np.clip(depth, 0, 8)[..., None]
    rgb = _PALETTE[np.minimum(label, 2)] * shade + rng.normal(0.0, 6.0, (height, width, 3))
    rgb = np.clip(rgb, 0, 255).astype(np.uint8)
    return rgb, depth_mm, label
