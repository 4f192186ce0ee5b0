"""Spherical projection of a decoded sweep into a range image (nearest return wins)."""
import math

import torch

import velodyne

IGNORE = -100


class RangeProjector:
    """Project a sweep onto an H x W image: channels (range, x, y, z in m, intensity, valid)."""

    def __init__(self, width, resolution=0.002, sensor_height=1.8):
        self.height = velodyne.LASERS
        self.width = width
        self.resolution = resolution
        self.sensor_height = sensor_height

    def __call__(self, packet_bytes, labels, rotation=0, keep=None):
        H, W = self.height, self.width
        depth = [[math.inf] * W for _ in range(H)]
        xs = [[0.0] * W for _ in range(H)]
        ys = [[0.0] * W for _ in range(H)]
        zs = [[0.0] * W for _ in range(H)]
        intensity = [[0.0] * W for _ in range(H)]
        valid = [[0.0] * W for _ in range(H)]
        target = [[IGNORE] * W for _ in range(H)]
        for i, (laser, azimuth, distance, refl) in enumerate(velodyne.iter_points(packet_bytes)):
            if distance == 0 or (keep is not None and not keep[i]):
                continue
            # Point in the (yaw-augmented) sensor frame.
            r = distance * self.resolution
            az = (azimuth + rotation) % 36000
            theta = math.radians(az / 100.0)
            cos_e = velodyne.COS_ELEVATION[laser]
            x = r * cos_e * math.cos(theta)
            y = r * cos_e * math.sin(theta)
            z = r * velodyne.SIN_ELEVATION[laser] + self.sensor_height
            # Spherical projection: row from the beam, column from the azimuth.
            row = velodyne.ROW_OF_LASER[laser]
            col = az * W // 36000
            if r < depth[row][col]:
                depth[row][col] = r
                xs[row][col] = x
                ys[row][col] = y
                zs[row][col] = z
                intensity[row][col] = refl / 255.0
                valid[row][col] = 1.0
                target[row][col] = labels[i]
        rng_img = [[0.0 if d == math.inf else d for d in row] for row in depth]
        image = torch.tensor([rng_img, xs, ys, zs, intensity, valid], dtype=torch.float32)
        return image, torch.tensor(target, dtype=torch.long)
