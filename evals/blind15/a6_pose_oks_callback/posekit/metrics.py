"""COCO-style keypoint metrics in plain Python: heatmap decoding, PCK, OKS and OKS-based AP."""
import math

# COCO per-keypoint sigmas
SIGMAS = [0.026, 0.025, 0.025, 0.035, 0.035, 0.079, 0.079, 0.072, 0.072, 0.062, 0.062, 0.107, 0.107, 0.087,
          0.087, 0.089, 0.089]
OKS_THRESHOLDS = [0.5 + 0.05 * i for i in range(10)]
RECALL_THRESHOLDS = [i / 100 for i in range(101)]


def decode_heatmaps(heatmaps, stride):
    """heatmaps: nested lists [J][H][W] -> ([(x, y)] in input pixels, [maxval]).

    Argmax (first maximum in row-major order), then the usual quarter-pixel shift towards the
    higher neighbour, then back to input resolution."""
    coords, scores = [], []
    for hm in heatmaps:
        h, w = len(hm), len(hm[0])
        best, by, bx = -math.inf, 0, 0
        for y in range(h):
            row = hm[y]
            for x in range(w):
                if row[x] > best:
                    best, by, bx = row[x], y, x
        fx, fy = float(bx), float(by)
        if 0 < bx < w - 1:
            diff = hm[by][bx + 1] - hm[by][bx - 1]
            fx += 0.25 if diff > 0 else (-0.25 if diff < 0 else 0.0)
        if 0 < by < h - 1:
            diff = hm[by + 1][bx] - hm[by - 1][bx]
            fy += 0.25 if diff > 0 else (-0.25 if diff < 0 else 0.0)
        coords.append((fx * stride + stride / 2 - 0.5, fy * stride + stride / 2 - 0.5))
        scores.append(best)
    return coords, scores


def oks(pred, gt, vis, area, eps=1e-9):
    total, n = 0.0, 0
    for (px, py), (gx, gy), v, s in zip(pred, gt, vis, SIGMAS):
        if v > 0:
            var = (2 * s) ** 2
            e = ((px - gx) ** 2 + (py - gy) ** 2) / var / (area + eps) / 2
            total += math.exp(-e)
            n += 1
    return total / n if n else 0.0


def pck(pred, gt, vis, threshold):
    hits = [math.hypot(px - gx, py - gy) <= threshold for (px, py), (gx, gy), v in zip(pred, gt, vis) if v > 0]
    return sum(hits), len(hits)


def average_precision(scores, matched_oks, n_gt):
    """COCO-style AP averaged over OKS thresholds 0.50:0.05:0.95 with 101-point interpolation."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    aps = []
    for t in OKS_THRESHOLDS:
        tp_c = fp_c = 0
        precision, recall = [], []
        for i in order:
            if matched_oks[i] >= t:
                tp_c += 1
            else:
                fp_c += 1
            precision.append(tp_c / (tp_c + fp_c))
            recall.append(tp_c / n_gt)
        for i in range(len(precision) - 1, 0, -1):
            if precision[i] > precision[i - 1]:
                precision[i - 1] = precision[i]
        interp = []
        for r in RECALL_THRESHOLDS:
            idx = next((i for i, rc in enumerate(recall) if rc >= r), None)
            interp.append(precision[idx] if idx is not None else 0.0)
        aps.append(sum(interp) / len(interp))
    return sum(aps) / len(aps)
