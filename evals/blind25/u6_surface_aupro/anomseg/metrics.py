"""Per-region overlap (PRO) and its area under the PRO / false-positive-rate curve (AUPRO),
as used for anomaly segmentation benchmarks (MVTec AD)."""
from collections import deque


def connected_components(mask):
    """4-connected components of a 2-D 0/1 list mask, in raster order of their first pixel.
    Returns a list of pixel lists [(y, x), ...]."""
    h, w = len(mask), len(mask[0])
    seen = [[False] * w for _ in range(h)]
    comps = []
    for y in range(h):
        for x in range(w):
            if mask[y][x] and not seen[y][x]:
                seen[y][x] = True
                q = deque([(y, x)])
                pix = []
                while q:
                    cy, cx = q.popleft()
                    pix.append((cy, cx))
                    for ny, nx in ((cy - 1, cx), (cy + 1, cx), (cy, cx - 1), (cy, cx + 1)):
                        if 0 <= ny < h and 0 <= nx < w and mask[ny][nx] and not seen[ny][nx]:
                            seen[ny][nx] = True
                            q.append((ny, nx))
                comps.append(pix)
    return comps


def pro_curve(probs, masks, thresholds):
    """probs, masks: nested lists [B][H][W]. Returns [(fpr, pro)] per threshold."""
    comps = []
    for b in range(len(masks)):
        for pix in connected_components(masks[b]):
            comps.append([probs[b][y][x] for y, x in pix])
    normal = []
    for b in range(len(masks)):
        for y in range(len(masks[b])):
            for x in range(len(masks[b][y])):
                if not masks[b][y][x]:
                    normal.append(probs[b][y][x])
    curve = []
    for t in thresholds:
        fp = 0
        for p in normal:
            if p > t:
                fp += 1
        fpr = fp / len(normal) if normal else 0.0
        total = 0.0
        for vals in comps:
            hit = 0
            for p in vals:
                if p > t:
                    hit += 1
            total += hit / len(vals)
        curve.append((fpr, total / len(comps) if comps else 0.0))
    return curve


def aupro(curve, max_fpr):
    """Area under the PRO curve up to max_fpr, normalised to [0, 1]."""
    pts = sorted(curve)
    if pts[0][0] > 0.0:
        pts = [(0.0, pts[0][1])] + pts
    area = 0.0
    for (f0, p0), (f1, p1) in zip(pts, pts[1:]):
        if f0 >= max_fpr:
            break
        if f1 > max_fpr:
            p1 = p0 + (p1 - p0) * (max_fpr - f0) / (f1 - f0)
            f1 = max_fpr
        area += (f1 - f0) * (p0 + p1) / 2.0
    return area / max_fpr
