"""Classic nuclei segmentation: robust threshold, connected components, region properties."""
from collections import deque, namedtuple

import numpy as np

Region = namedtuple("Region", ["label", "area", "centroid_y", "centroid_x", "mean_intensity"])

_NEIGHBOURS = {
    4: ((-1, 0), (1, 0), (0, -1), (0, 1)),
    8: ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)),
}


def robust_threshold(image, k):
    img = image.astype(np.float64)
    med = np.median(img)
    mad = np.median(np.abs(img - med))
    return med + k * 1.4826 * mad


def label_regions(image, mask, connectivity=8):
    """Flood-fill labelling (BFS) in raster order; accumulates each region's moments on the way."""
    h, w = mask.shape
    labels = np.zeros((h, w), dtype=np.int32)
    neighbours = _NEIGHBOURS[connectivity]
    regions = []
    current = 0
    for y in range(h):
        for x in range(w):
            if not mask[y, x] or labels[y, x]:
                continue
            current += 1
            labels[y, x] = current
            queue = deque([(y, x)])
            area = sum_y = sum_x = sum_i = 0
            while queue:
                cy, cx = queue.popleft()
                area += 1
                sum_y += cy
                sum_x += cx
                sum_i += int(image[cy, cx])
                for dy, dx in neighbours:
                    ny, nx = cy + dy, cx + dx
                    if 0 <= ny < h and 0 <= nx < w and mask[ny, nx] and not labels[ny, nx]:
                        labels[ny, nx] = current
                        queue.append((ny, nx))
            regions.append(Region(current, area, sum_y / area, sum_x / area, sum_i / area))
    return labels, regions
