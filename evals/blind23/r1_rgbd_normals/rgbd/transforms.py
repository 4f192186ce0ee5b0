"""torchvision-style transforms on RGB-D sample dicts."""
import math

import numpy as np
import torch


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, sample):
        if sample["rng"].random() < self.p:
            sample["rgb"] = sample["rgb"][:, ::-1].copy()
            sample["depth"] = sample["depth"][:, ::-1].copy()
            sample["label"] = sample["label"][:, ::-1].copy()
            fx, fy, cx, cy = sample["K"]
            sample["K"] = (fx, fy, sample["depth"].shape[1] - 1 - cx, cy)
        return sample


class DepthToNormals:
    """Surface normals from a depth map.

    The depth is first smoothed with a (2r+1)x(2r+1) mean over the valid neighbours (the sensor
    noise makes raw central differences noisy). Then it back-projects every pixel with the pinhole intrinsics, then takes the cross product
    of the horizontal and vertical neighbour differences (central differences) and
    normalises it; normals are oriented towards the camera. Pixels whose depth or whose
    4-neighbourhood is invalid get a zero normal.
    """

    def __init__(self, depth_scale=1000.0, max_depth=8.0, radius=1, eps=1e-9):
        self.depth_scale = depth_scale
        self.radius = radius
        self.max_depth = max_depth
        self.eps = eps

    def __call__(self, sample):
        depth = sample["depth"]
        fx, fy, cx, cy = sample["K"]
        h, w = depth.shape
        rows = depth.tolist()
        metres = [[d / self.depth_scale for d in row] for row in rows]
        valid = [[0 < z <= self.max_depth for z in row] for row in metres]

        points = []
        for v in range(h):
            line = []
            for u in range(w):
                if not valid[v][u]:
                    line.append(None)
                    continue
                total, count = 0.0, 0
                for dv in range(-self.radius, self.radius + 1):
                    if not 0 <= v + dv < h:
                        continue
                    for du in range(-self.radius, self.radius + 1):
                        if 0 <= u + du < w and valid[v + dv][u + du]:
                            total += metres[v + dv][u + du]
                            count += 1
                z = total / count
                line.append(((u - cx) * z / fx, (v - cy) * z / fy, z))
            points.append(line)

        normals = np.zeros((h, w, 3), dtype=np.float32)
        for v in range(1, h - 1):
            for u in range(1, w - 1):
                if points[v][u] is None:
                    continue
                left, right = points[v][u - 1], points[v][u + 1]
                up, down = points[v - 1][u], points[v + 1][u]
                if left is None or right is None or up is None or down is None:
                    continue
                ax, ay, az = right[0] - left[0], right[1] - left[1], right[2] - left[2]
                bx, by, bz = down[0] - up[0], down[1] - up[1], down[2] - up[2]
                nx = ay * bz - az * by
                ny = az * bx - ax * bz
                nz = ax * by - ay * bx
                norm = math.sqrt(nx * nx + ny * ny + nz * nz)
                if norm < self.eps:
                    continue
                if nz > 0:
                    nx, ny, nz = -nx, -ny, -nz
                normals[v, u] = (nx / norm, ny / norm, nz / norm)
        sample["normals"] = normals
        return sample


class ToTensor:
    """Stack normalised RGB, normals and scaled depth into a CxHxW float tensor."""

    def __init__(self, mean, std, depth_scale=1000.0, max_depth=8.0):
        self.mean = torch.tensor(mean, dtype=torch.float32).view(3, 1, 1)
        self.std = torch.tensor(std, dtype=torch.float32).view(3, 1, 1)
        self.depth_scale = depth_scale
        self.max_depth = max_depth

    def __call__(self, sample):
        rgb = torch.from_numpy(sample["rgb"]).permute(2, 0, 1).float().div_(255.0)
        rgb = (rgb - self.mean) / self.std
        normals = torch.from_numpy(sample["normals"]).permute(2, 0, 1)
        depth = torch.from_numpy(sample["depth"].astype(np.float32)) / self.depth_scale
        depth = (depth / self.max_depth).clamp_(0.0, 1.0).unsqueeze(0)
        image = torch.cat([rgb, normals, depth], dim=0)
        label = torch.from_numpy(sample["label"].astype(np.int64))
        return image, label
