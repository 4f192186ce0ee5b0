"""Sparse voxelisation collate (MinkowskiEngine / spconv style input): coords [b, i, j, k] + mean features."""
import math

import torch


class VoxelCollate:
    def __init__(self, voxel_size, extent):
        self.voxel_size = voxel_size
        self.extent = extent

    def voxelize(self, points):
        voxels = {}
        for x, y, z in points.tolist():
            if abs(x) > self.extent or abs(y) > self.extent or abs(z) > self.extent:
                continue
            key = (math.floor(x / self.voxel_size), math.floor(y / self.voxel_size),
                   math.floor(z / self.voxel_size))
            if key not in voxels:
                voxels[key] = [0.0, 0.0, 0.0, 0]
            acc = voxels[key]
            acc[0] += x
            acc[1] += y
            acc[2] += z
            acc[3] += 1
        coords, feats = [], []
        for key, (sx, sy, sz, n) in voxels.items():
            coords.append(list(key))
            feats.append([sx / n, sy / n, sz / n, float(n)])
        return coords, feats

    def __call__(self, batch):
        all_coords, all_feats, labels = [], [], []
        for b, (points, label) in enumerate(batch):
            coords, feats = self.voxelize(points)
            all_coords.extend([b] + c for c in coords)
            all_feats.extend(feats)
            labels.append(label)
        return {"coords": torch.tensor(all_coords, dtype=torch.int64),
                "feats": torch.tensor(all_feats, dtype=torch.float32),
                "labels": torch.tensor(labels, dtype=torch.int64)}
